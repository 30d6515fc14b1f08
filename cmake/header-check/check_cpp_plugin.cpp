/*
 * Header check (C++17 only): the C++ helper <plugboard/cpp/plugin.hpp> compiles
 * cleanly with -Wall -Wextra -pedantic -Werror, and builds the vtables it
 * documents (CMakeLists.txt adds this file to the C++17 check; the helper needs
 * C++17). Its templates are instantiated here, so their bodies are checked too.
 */
#include <plugboard/cpp/plugin.hpp>
#include <plugboard/cpp/plugin.hpp> // a second time: the header is guarded

namespace {

// Takes part in open-url and in one event of app-state; nothing else.
struct CheckPlugin : plugboard::Plugin<CheckPlugin> {
    static constexpr plugboard::PluginInfo info = {"org.plugboard.header-check", "Check", "1.0.0", 0};
    bool open_url(std::string_view url, std::string_view) const noexcept { return !url.empty(); }
    void did_become_active() {}
    void did_receive_remote_notification(std::string_view, plugboard::Completion completion) {
        plugboard::Completion kept = completion;
        kept(plugboard::FetchResult::no_data);
    }
};

using Tables = plugboard::detail::Trampolines<CheckPlugin>;
template <class Function> constexpr bool is_set(Function function) { return function != nullptr; }
static_assert(is_set(Tables::open_url_table.open_url), "a declared event has its slot");
static_assert(is_set(Tables::app_state.did_become_active), "a declared event has its slot");
static_assert(!is_set(Tables::app_state.will_resign_active), "an event not declared is a NULL slot");
static_assert(!is_set(Tables::launch.will_finish_launching) && !is_set(Tables::launch.did_finish_launching),
              "a concern not declared has only NULL slots (and a NULL vtable)");
static_assert(!is_set(Tables::remote_notifications.did_register), "an event not declared is a NULL slot");

}  // namespace

const pb_entry_t *pb_check_cpp_entry() { return plugboard::detail::Library<CheckPlugin>::entry(); }
