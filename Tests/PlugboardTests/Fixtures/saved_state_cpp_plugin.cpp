// The saved-state counter of saved_state_plugin.c as a C++ class on <plugboard/cpp/plugin.hpp>:
// it counts the URLs it opened over every run, its state the text "count N"; restore_state
// logs "restored count N (saved by VERSION)", each open_url logs "count N". Id
// "com.example.cpp-counter", version "1.0".
#include <plugboard/cpp/plugin.hpp>

#include <string>

struct CppCounter : plugboard::Plugin<CppCounter> {
    static constexpr plugboard::PluginInfo info = {"com.example.cpp-counter", "C++ counter", "1.0", 0};
    long count = 0;

    bool open_url(std::string_view, std::string_view) {
        log(PB_LOG_INFO, ("count " + std::to_string(++count)).c_str());
        return true;
    }
    std::optional<std::string> save_state() { return "count " + std::to_string(count); }
    bool restore_state(plugboard::Bytes state, std::string_view saved_version) {
        std::string text(state.begin(), state.end());
        if (text.rfind("count ", 0) != 0) return false;
        count = std::stol(text.substr(6));
        log(PB_LOG_INFO, ("restored " + text + " (saved by " + std::string(saved_version) + ")").c_str());
        return true;
    }
};

PLUGBOARD_EXPORT_PLUGINS(CppCounter)
