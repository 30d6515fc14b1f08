extension LanguageTemplate {
    /// A C++ plugin on `<plugboard/cpp/plugin.hpp>`: `<name>.cpp` and a Makefile that builds `build/<name>.so`.
    static func cpp(_ project: Scaffold) -> LanguageTemplate {
        let name = project.name.rawValue
        let type = project.name.typeName
        return LanguageTemplate(
            files: [
                ProjectFile(path: "Makefile", text: makefile(name: name, source: name + ".cpp", language: "C++", compiler: "CXX",
                                                             flags: "CXXFLAGS", defaultFlags: "-std=c++17 -Wall -Wextra -O2",
                                                             headers: "plugboard/cpp/plugin.hpp", sdk: project.sdk)),
                ProjectFile(path: name + ".cpp", text: #"""
                    // \#(name): a Plugboard plugin in C++, made by `plugboard new`.
                    //
                    // It opens \#(project.name.scheme):// links and logs at launch and at termination.
                    // <plugboard/cpp/plugin.hpp> turns the class into the C vtables: it declares only
                    // the events it takes part in, and every callback runs in a noexcept trampoline
                    // that catches exceptions, logs them and answers fail-closed.
                    #include <plugboard/cpp/plugin.hpp>

                    #include <string>
                    #include <string_view>

                    namespace {

                    /** The links this plugin opens. */
                    constexpr std::string_view scheme = "\#(project.name.scheme)://";

                    class \#(type) : public plugboard::Plugin<\#(type)> {
                    public:
                        /** Who this plugin is: the id is reverse-DNS and unique in the process. */
                        static constexpr plugboard::PluginInfo info = {"\#(project.id)", "\#(name)", "0.1.0", 0};

                        /** Launch is a vote: false would veto it. */
                        bool did_finish_launching(std::string_view /*options_json*/) {
                            log(PB_LOG_INFO, "launched");
                            return true;
                        }

                        /** Asked for each URL until a plugin answers true; `url` is valid only during the call. */
                        bool open_url(std::string_view url, std::string_view /*options_json*/) {
                            if (url.substr(0, scheme.size()) != scheme) return false;  // not ours: the next plugin is asked
                            log(PB_LOG_INFO, ("open " + std::string(url.substr(scheme.size()))).c_str());
                            return true;
                        }

                        void will_terminate() { log(PB_LOG_INFO, "terminating"); }
                    };

                    }  // namespace

                    // Writes plugboard_entry, the library's one exported function.
                    PLUGBOARD_EXPORT_PLUGINS(\#(type))

                    """#),
            ],
            build: "make", libraryDirectory: "build", libraryFile: name + ".so",
            sdkSetting: "the `PLUGBOARD_INCLUDE` line of the Makefile", ignored: ["/build/"])
    }
}
