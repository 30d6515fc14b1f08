extension LanguageTemplate {
    /// The Makefile of a C or C++ project: `make` builds `build/<name>.so` from `source`, with
    /// the SDK's include folder in one overridable variable, `PLUGBOARD_INCLUDE`.
    static func makefile(name: String, source: String, language: String, compiler: String, flags: String,
                         defaultFlags: String, headers: String, sdk: String) -> String {
        #"""
        # \#(name): a Plugboard plugin in \#(language). `make` builds build/\#(name).so.

        # The Plugboard headers (\#(headers)), found by `plugboard new`. Change this line if
        # the SDK moves, or override it: make PLUGBOARD_INCLUDE=/path/to/include
        PLUGBOARD_INCLUDE ?= \#(sdk)/include

        \#(flags) ?= \#(defaultFlags)

        # -fvisibility=hidden: plugboard_entry (marked PB_EXPORT) is the only exported symbol.
        build/\#(name).so: \#(source)
        \#tmkdir -p build
        \#t$(\#(compiler)) $(\#(flags)) -shared -fPIC -fvisibility=hidden -I"$(PLUGBOARD_INCLUDE)" -o $@ \#(source)

        clean:
        \#trm -rf build

        .PHONY: clean

        """#
    }
}
