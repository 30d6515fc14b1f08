// A C++ plugin that calls plugins/unit-converter's convert at launch through
// plugboard::Plugin::invoke, and a function that does not exist, and logs both answers; then
// the same through plugboard::Plugin::prepare (see ConverterCallerRun).
#include <plugboard/cpp/plugin.hpp>

#include <cstdio>
#include <string>

struct UnitCaller : plugboard::Plugin<UnitCaller> {
    static constexpr plugboard::PluginInfo info = {"com.example.cppcaller", "C++ caller", "1.0.0", 0};

    bool did_finish_launching(std::string_view) {
        std::string from = "ft";
        auto metres = invoke<double>("com.example.units.convert", from, std::string_view("m"), 3.0);
        char line[1200];
        if (metres) std::snprintf(line, sizeof line, "3 ft = %g m", *metres.value);
        else std::snprintf(line, sizeof line, "cannot convert (status %d): %s", metres.code, metres.message.c_str());
        log(PB_LOG_INFO, line);
        auto missing = invoke<std::string>("com.example.units.nosuch", 1);
        std::snprintf(line, sizeof line, "nosuch: status %d: %s", missing.code, missing.message.c_str());
        log(PB_LOG_INFO, line);

        auto convert = prepare<double>("com.example.units.convert", from, "m", 1.0);
        convert.set(2, 2.0);
        auto two = convert();
        convert.set(2, 10.0);
        auto ten = convert();
        if (two && ten) std::snprintf(line, sizeof line, "prepared: 2 ft = %g m, 10 ft = %g m", *two.value, *ten.value);
        else std::snprintf(line, sizeof line, "prepared: status %d %d", two.code, ten.code);
        log(PB_LOG_INFO, line);
        auto wrong = convert.set(2, "ten");
        std::snprintf(line, sizeof line, "prepared set: status %d: %s", wrong.code, wrong.message.c_str());
        log(PB_LOG_INFO, line);
        auto unknown = prepare<std::string>("com.example.units.nosuch", 1);
        std::snprintf(line, sizeof line, "prepared nosuch: status %d: %s", unknown.made().code, unknown.made().message.c_str());
        log(PB_LOG_INFO, line);
        return true;
    }
};

PLUGBOARD_EXPORT_PLUGINS(UnitCaller)
