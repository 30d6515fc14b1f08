import Glibc

/// A library opened the one way Plugboard opens libraries, and never closed.
///
/// `RTLD_NOW` reports missing symbols at load time instead of at the first
/// call; `RTLD_LOCAL` keeps one plugin's symbols from binding another's;
/// `RTLD_NODELETE` keeps the image mapped for good, because the Swift runtime
/// keeps pointers into any image that contains Swift code.
struct DynamicLibrary: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    static func open(_ path: String) throws(LoadFailure) -> DynamicLibrary {
        _ = dlerror()
        // `withCString` lends the path as it is stored; passing the `String` itself would copy it first.
        guard let handle = path.withCString({ dlopen($0, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) }) else {
            throw LoadFailure(.open, "dlopen could not load the library", systemError: lastError())
        }
        return DynamicLibrary(handle: handle)
    }

    /// The address of `symbol` in this library or its dependencies.
    func address(of symbol: String) throws(LookupError) -> UnsafeMutableRawPointer {
        _ = dlerror()
        guard let address = symbol.withCString({ dlsym(handle, $0) }) else { throw LookupError(text: Self.lastError() ?? "symbol not found") }
        return address
    }

    /// `dlsym`'s complaint.
    struct LookupError: Error {
        let text: String
    }

    private static func lastError() -> String? {
        dlerror().map { String(cString: $0) }
    }
}
