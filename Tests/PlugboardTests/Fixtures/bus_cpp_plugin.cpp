// A C++ plugin on the notification bus through plugboard::Plugin: at launch it observes
// com.example.cpp.news (logging "received NAME PAYLOAD from SENDER"), and open_url posts it.
#include <plugboard/cpp/plugin.hpp>

#include <cstdio>

struct BusUser : plugboard::Plugin<BusUser> {
    static constexpr plugboard::PluginInfo info = {"com.example.cppbus", "C++ bus", "1.0.0", 0};

    static void received(void *, const char *name, const char *payload, const char *sender) {
        char line[512];
        std::snprintf(line, sizeof line, "received %s %s from %s", name, payload, sender);
        log(PB_LOG_INFO, line);
    }

    bool will_finish_launching(std::string_view) {
        uint64_t token = 0;
        return observe("com.example.cpp.news", received, nullptr, &token) == PB_OK;
    }

    bool open_url(std::string_view, std::string_view) {
        char line[64];
        std::snprintf(line, sizeof line, "post: %d", post("com.example.cpp.news", R"({"from":"c++"})"));
        log(PB_LOG_INFO, line);
        return false;
    }
};

PLUGBOARD_EXPORT_PLUGINS(BusUser)
