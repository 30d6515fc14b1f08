/*
 * Test fixture: a C++ plugin, written with <plugboard/cpp/plugin.hpp>, that
 * throws in every event it declares, to check the helper's trampolines.
 *
 *   -DTHROW_NON_STD        throw an int instead of std::runtime_error("boom in <event>")
 *   -DTHROW_IN_LAUNCH      also throw in will_finish_launching (else it answers true)
 *   -DTHROW_IN_CONSTRUCTOR throw in the constructor (made in register_plugins)
 *
 * did_receive_remote_notification answers new-data first, then throws, when the
 * user info holds "answer-first"; otherwise it only throws.
 */
#include <plugboard/cpp/plugin.hpp>

#include <stdexcept>
#include <string>

namespace {

/** Throws the configured exception for `event`. */
[[noreturn]] void boom(const char *event) {
#ifdef THROW_NON_STD
    (void)event;
    throw 42;
#else
    throw std::runtime_error(std::string("boom in ") + event);
#endif
}

struct Thrower : plugboard::Plugin<Thrower> {
    static constexpr plugboard::PluginInfo info = {"com.example.thrower", "Thrower", "1.0.0", 0};

#ifdef THROW_IN_CONSTRUCTOR
    Thrower() { boom("Thrower()"); }
#endif

    bool will_finish_launching(std::string_view) {
#ifdef THROW_IN_LAUNCH
        boom("will_finish_launching");
#else
        return true;
#endif
    }
    bool open_url(std::string_view, std::string_view) { boom("open_url"); }
    bool continue_user_activity(std::string_view, std::string_view) { boom("continue_user_activity"); }
    void did_register_for_remote_notifications(plugboard::Bytes) { boom("did_register_for_remote_notifications"); }
    void did_receive_remote_notification(std::string_view user_info, plugboard::Completion completion) {
        if (user_info.find("answer-first") != std::string_view::npos) completion(plugboard::FetchResult::new_data);
        boom("did_receive_remote_notification");
    }
    void did_receive_memory_warning() { boom("did_receive_memory_warning"); }
    void did_become_active() { boom("did_become_active"); }
    void will_terminate() { boom("will_terminate"); }
};

}  // namespace

PLUGBOARD_EXPORT_PLUGINS(Thrower)
