import Glibc

/// Lists the candidate plugin files of one directory: every entry named
/// `*.so` that is not a directory, in byte order of the name, so the order is
/// the same on every run and every machine.
enum PluginDirectoryScanner {
    static func scan(_ directory: String) -> Result<[String], LoadFailure> {
        guard let stream = opendir(directory) else {
            let error = SystemError.current()
            let message = error.code == ENOENT ? "the plugin directory does not exist"
                : error.code == ENOTDIR ? "the plugin directory is not a directory"
                : "cannot read the plugin directory"
            return .failure(LoadFailure(.scan, message, systemError: error.description))
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard name.count > 3, name.suffix(3).elementsEqual(".so".utf8) else { continue }
            names.append(name)
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return .success(names.sorted { $0.lexicographicallyPrecedes($1) }.compactMap { name in
            let path = base + String(decoding: name, as: UTF8.self)
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? nil : path
        })
    }
}
