import Glibc

/// A library opened the one way Plugboard opens libraries, and never closed.
///
/// `RTLD_NOW` reports missing symbols at load time instead of at the first
/// call; `RTLD_LOCAL` keeps one plugin's symbols from binding another's;
/// `RTLD_NODELETE` keeps the image mapped for good, because the Swift runtime
/// keeps pointers into any image that contains Swift code.
struct DynamicLibrary: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    static func open(_ path: String) -> Result<DynamicLibrary, LoadFailure> {
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            return .failure(LoadFailure(.open, "dlopen could not load the library", systemError: lastError()))
        }
        return .success(DynamicLibrary(handle: handle))
    }

    /// The address of `symbol` in this library or its dependencies.
    func address(of symbol: String) -> Result<UnsafeMutableRawPointer, LookupError> {
        _ = dlerror()
        if let address = dlsym(handle, symbol) { return .success(address) }
        return .failure(LookupError(text: Self.lastError() ?? "symbol not found"))
    }

    /// `dlsym`'s complaint.
    struct LookupError: Error {
        let text: String
    }

    private static func lastError() -> String? {
        dlerror().map { String(cString: $0) }
    }
}
