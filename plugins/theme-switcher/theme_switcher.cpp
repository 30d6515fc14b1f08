/*
 * theme-switcher: a plugin written in C++ with <plugboard/cpp/plugin.hpp>.
 *
 * It keeps the application's colour theme: `myapp://theme/<name>` URLs switch
 * it, it is read from the container at launch and saved at termination, and a
 * push notification with a "theme" key counts as new data.
 *
 * What it shows:
 *   - a plugin is a class deriving from plugboard::Plugin<itself> with a
 *     static `info`; PLUGBOARD_EXPORT_PLUGINS(...) writes `plugboard_entry`;
 *   - the class declares only the events it takes part in (here four
 *     concerns: launch, open URL, remote notifications, termination); every
 *     other concern is a NULL vtable, so the host never calls it, and
 *     `plugboard list` shows only these;
 *   - state lives in the object (made in register_plugins, destroyed in
 *     deinit), not in globals;
 *   - a function called by name: `is_known`, listed in `functions`, with
 *     its signature "bool (string)" derived from its C++ type;
 *   - an exception never reaches the host: `myapp://theme/<unknown>` throws
 *     std::invalid_argument on purpose; the helper's trampoline catches it,
 *     logs "exception in open_url: unknown theme '<name>'; answered not
 *     handled" as this plugin, and answers false (not handled).
 *
 * Build: c++ -std=c++17 -O2 -shared -fPIC -fvisibility=hidden -I include \
 *            -o theme-switcher.so plugins/theme-switcher/theme_switcher.cpp
 */
#include <plugboard/cpp/plugin.hpp>

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

/** The themes the application knows. */
constexpr std::array<std::string_view, 3> known_themes = {"light", "dark", "sepia"};

/** Where the chosen theme is kept in the application's container. */
const char *const theme_path = "Library/theme";

class ThemeSwitcher : public plugboard::Plugin<ThemeSwitcher> {
public:
    /** Who this plugin is: read by PLUGBOARD_EXPORT_PLUGINS. */
    static constexpr plugboard::PluginInfo info = {"com.example.theme-switcher", "Theme switcher", "1.0.0", 0};

    /** Launch: take up the theme saved last time. Only did-finish is declared,
     *  so will-finish is a NULL slot (which the host counts as "true"). */
    bool did_finish_launching(std::string_view /*options_json*/) {
        std::string saved;
        plugboard::Status status = files().read(theme_path, saved);
        if (status) {
            theme_ = saved;
        } else if (status.code != PB_ERR_NOT_FOUND) {
            report(PB_LOG_WARNING, "cannot read the saved theme: ", status.message);
        }
        report(PB_LOG_INFO, "theme ", theme_);
        return true;
    }

    /** URLs: `myapp://theme/<name>` switches the theme; other URLs are not ours. */
    bool open_url(std::string_view url, std::string_view /*options_json*/) {
        constexpr std::string_view prefix = "myapp://theme/";
        if (url.substr(0, prefix.size()) != prefix) return false;
        std::string_view name = url.substr(prefix.size());
        if (is_known(name)) {
            theme_ = std::string(name);
            report(PB_LOG_INFO, "theme ", theme_);
            return true;
        }
        // On purpose: the trampoline catches this, logs it and answers false.
        std::string reason = "unknown theme '";
        reason.append(name).append("'");
        throw std::invalid_argument(reason);
    }

    /** A function the host and other plugins call by name (ABI 1.2):
     *  `plugboard call --isolation none --plugin-dir DIR com.example.theme-switcher.is_known dark`. It reads only
     *  constants, so it is safe on any thread. */
    bool is_known(std::string_view name) const {
        for (std::string_view known : known_themes) {
            if (name == known) return true;
        }
        return false;
    }

    /** The functions this plugin offers; the helper derives "bool (string)" from is_known's type. */
    static constexpr plugboard::Function functions[] = {
        plugboard::function<&ThemeSwitcher::is_known>("is_known", "Whether NAME is a theme this plugin can switch to"),
    };

    /** Push: a notification that carries a "theme" key is new data. The
     *  completion could also be kept and called later, from another thread. */
    void did_receive_remote_notification(std::string_view user_info_json, plugboard::Completion completion) {
        bool about_themes = user_info_json.find("\"theme\"") != std::string_view::npos;
        completion(about_themes ? plugboard::FetchResult::new_data : plugboard::FetchResult::no_data);
    }

    /** Termination: save the theme for the next launch. */
    void will_terminate() {
        plugboard::Status status = files().write(theme_path, theme_, PB_FILES_OVERWRITE | PB_FILES_CREATE_FOLDERS);
        if (!status) report(PB_LOG_ERROR, "cannot save the theme: ", status.message);
    }

private:
    /** Logs `text` followed by `detail`, as this plugin. (Appending rather than
     *  `"text" + string` keeps libstdc++'s operator+ template, which has default
     *  visibility, out of the library's exports: check with `nm -D`.) */
    static void report(pb_log_level_t level, const char *text, const std::string &detail) {
        std::string message = text;
        message += detail;
        log(level, message.c_str());
    }

    std::string theme_ = "light";
};

}  // namespace

PLUGBOARD_EXPORT_PLUGINS(ThemeSwitcher)
