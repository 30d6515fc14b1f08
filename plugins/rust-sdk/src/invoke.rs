//! Calling another plugin's function by name (`pb_host_t.invoke`, ABI 1.2): [`Host::invoke`].

use crate::abi::*;
use crate::host::Host;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;

/// One argument of [`Host::invoke`], borrowed for the call. Integers travel as 64 bits
/// whatever the declared width; the host checks each against the declared signature
/// (`300` for an `int8` is refused, a string for a `double` too).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Argument<'a> {
    /// For a `bool` parameter.
    Bool(bool),
    /// For any integer parameter it fits.
    Int(i64),
    /// For any integer parameter it fits.
    UInt(u64),
    /// For a `float` or `double` parameter.
    Float(f32),
    /// For a `double` parameter, or a `float` one within float's range.
    Double(f64),
    /// For a `string` parameter; a NUL byte in it is refused before the call.
    Str(&'a str),
    /// For a `bytes` parameter.
    Bytes(&'a [u8]),
    /// For a `pointer` parameter; only between plugins in one process.
    Pointer(*mut c_void),
}

/// The result of [`Host::invoke`], copied out of the host's memory (which is then released).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// The result of a `void` function.
    Void,
    /// The result of a `bool` function.
    Bool(bool),
    /// The result of an `intN` function.
    Int(i64),
    /// The result of a `uintN` function.
    UInt(u64),
    /// The result of a `float` function.
    Float(f32),
    /// The result of a `double` function.
    Double(f64),
    /// The result of a `string` function.
    Str(String),
    /// The result of a `bytes` function.
    Bytes(Vec<u8>),
    /// The result of a `pointer` function.
    Pointer(*mut c_void),
}

/// A failed [`Host::invoke`]: the `PB_ERR_*` status and the host's sentence naming the function and the cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvokeError {
    /// One of the negative `PB_ERR_*` codes (`PB_ERR_NOT_FOUND` for an unknown plugin or function, …).
    pub status: pb_status_t,
    /// The function and the cause, in the host's words.
    pub message: String,
}

impl InvokeError {
    /// Whether the host's policy denies this library `invoke` (`PB_ERR_DENIED`, since 1.3).
    pub fn is_denied(&self) -> bool {
        self.status == PB_ERR_DENIED
    }
}

impl std::fmt::Display for InvokeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (status {})", self.message, self.status)
    }
}

impl std::error::Error for InvokeError {}

impl Host {
    /// Calls `function`, "plugin-id.function" (e.g. `"com.example.units.convert"`), that any plugin
    /// declared, with `arguments`, wherever it runs (this process or a worker), and returns its
    /// result. Any thread; the call runs on this thread when the function is in this process.
    pub fn invoke(&self, function: &str, arguments: &[Argument<'_>]) -> Result<Value, InvokeError> {
        // The fields are read only when the host's table covers them (an older host's is shorter).
        let covers_invoke = self.table.covers(std::mem::offset_of!(pb_host_t, release_value), std::mem::size_of::<usize>());
        let services = if covers_invoke { self.table.invoke.zip(self.table.release_value) } else { None };
        let Some((invoke, release_value)) = services else {
            return Err(error(PB_ERR_UNAVAILABLE, "this host has no invoke (ABI 1.2 is needed)".to_string()));
        };
        let name = c_name(function)?;
        let held = CArguments::new(function, arguments)?;
        let mut result = void_value();
        let mut message = [0 as c_char; 1024];
        // SAFETY: the table is valid; the name, the values and the strings they point to outlive the
        // call; `result` and `message` are writable for their sizes.
        let status = unsafe {
            invoke(self.table, name.as_ptr(), held.pointer(), held.values.len(), &mut result, message.as_mut_ptr(), message.len())
        };
        // SAFETY: `result` and `message` are what this host's invoke wrote.
        unsafe { answer(self.table, release_value, function, status, &mut result, &message) }
    }

    /// Prepares calls of `function` with `arguments` (as [`Host::invoke`] takes them), checked by the
    /// host once, here (ABI 1.4): [`Prepared::set`] changes an argument, [`Prepared::call`] calls.
    pub fn prepare(&self, function: &str, arguments: &[Argument<'_>]) -> Result<Prepared, InvokeError> {
        let covers = self.table.covers(std::mem::offset_of!(pb_host_t, release_prepared), std::mem::size_of::<usize>());
        let Some(prepare_invoke) = self.table.prepare_invoke.filter(|_| covers) else {
            return Err(no_prepared_invocations());
        };
        let name = c_name(function)?;
        let held = CArguments::new(function, arguments)?;
        let mut handle = ptr::null_mut();
        let mut message = [0 as c_char; 1024];
        // SAFETY: as in `invoke`; `handle` is writable.
        let status = unsafe {
            prepare_invoke(self.table, name.as_ptr(), held.pointer(), held.values.len(), &mut handle, message.as_mut_ptr(), message.len())
        };
        if status != PB_OK {
            return Err(error(status, sentence(&message)));
        }
        Ok(Prepared { table: self.table, handle, function: function.to_string() })
    }
}

/// An invocation prepared once by [`Host::prepare`] and made many times: the host looked the
/// function up and checked the arguments, so a call only runs it and copies its result. Calls may
/// run on several threads at once; [`Prepared::set`] while one runs is refused (`PB_ERR_WRONG_STATE`).
/// The host's handle is released when the value is dropped.
#[derive(Debug)]
pub struct Prepared {
    table: &'static pb_host_t,
    handle: *mut pb_prepared_invoke_t,
    function: String,
}

// SAFETY: the handle is the host's, and every host function that takes it is [thread-safe].
unsafe impl Send for Prepared {}
// SAFETY: as above.
unsafe impl Sync for Prepared {}

impl Prepared {
    /// Sets argument `index` (0-based) to `argument`, checked by the host; on an error the
    /// argument keeps its value.
    pub fn set(&self, index: usize, argument: Argument<'_>) -> Result<(), InvokeError> {
        let held = CArguments::new(&self.function, std::slice::from_ref(&argument))?;
        let mut message = [0 as c_char; 1024];
        let set = self.table.set_prepared_argument.ok_or_else(no_prepared_invocations)?;
        // SAFETY: the table and handle are valid; the value and its string outlive the call.
        let status = unsafe { set(self.table, self.handle, index, held.pointer(), message.as_mut_ptr(), message.len()) };
        if status == PB_OK { Ok(()) } else { Err(error(status, sentence(&message))) }
    }

    /// Calls the function with the arguments as set; answered as [`Host::invoke`] is.
    pub fn call(&self) -> Result<Value, InvokeError> {
        let services = self.table.call_prepared.zip(self.table.release_value);
        let (call, release_value) = services.ok_or_else(no_prepared_invocations)?;
        let mut result = void_value();
        let mut message = [0 as c_char; 1024];
        // SAFETY: the table and handle are valid; `result` and `message` are writable for their sizes.
        let status = unsafe { call(self.table, self.handle, &mut result, message.as_mut_ptr(), message.len()) };
        // SAFETY: `result` and `message` are what this host's call_prepared wrote.
        unsafe { answer(self.table, release_value, &self.function, status, &mut result, &message) }
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some(release) = self.table.release_prepared {
            // SAFETY: the handle is this host's, released once.
            unsafe { release(self.table, self.handle) };
        }
    }
}

/// The error of a host older than ABI 1.4, whose table has no prepared invocations.
fn no_prepared_invocations() -> InvokeError {
    error(PB_ERR_UNAVAILABLE, "this host has no prepared invocations (ABI 1.4 is needed)".to_string())
}

/// `function` as a C string, or why it cannot be one.
fn c_name(function: &str) -> Result<CString, InvokeError> {
    CString::new(function).map_err(|_| error(PB_ERR_INVALID_ARGUMENT, format!("the function name {function:?} contains a NUL byte")))
}

/// Arguments as `pb_value_t`s, with the C copies of their strings, which they point to.
struct CArguments {
    values: Vec<pb_value_t>,
    _strings: Vec<Option<CString>>,
}

impl CArguments {
    fn new(function: &str, arguments: &[Argument<'_>]) -> Result<Self, InvokeError> {
        let strings = arguments
            .iter()
            .enumerate()
            .map(|(index, argument)| match argument {
                Argument::Str(text) => CString::new(*text).map(Some).map_err(|_| {
                    error(PB_ERR_INVALID_ARGUMENT, format!("{function}: argument {} contains a NUL byte", index + 1))
                }),
                _ => Ok(None),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let values = arguments.iter().zip(&strings).map(|(argument, string)| c_value(argument, string.as_deref())).collect();
        Ok(CArguments { values, _strings: strings })
    }

    /// The values, or NULL when there are none.
    fn pointer(&self) -> *const pb_value_t {
        if self.values.is_empty() { ptr::null() } else { self.values.as_ptr() }
    }
}

/// The host's sentence in `message`.
fn sentence(message: &[c_char]) -> String {
    // SAFETY: the host wrote a NUL-terminated sentence within the buffer (it was zeroed before).
    unsafe { CStr::from_ptr(message.as_ptr()) }.to_string_lossy().into_owned()
}

/// The answer of an invocation of `function` that returned `status`, `result` and `message`;
/// the host's result is copied, then released.
///
/// # Safety
/// `result` and `message` were written by the host's invoke or call_prepared.
unsafe fn answer(table: &'static pb_host_t, release_value: unsafe extern "C" fn(*const pb_host_t, *mut pb_value_t), function: &str,
                 status: pb_status_t, result: &mut pb_value_t, message: &[c_char]) -> Result<Value, InvokeError> {
    if status != PB_OK {
        return Err(error(status, sentence(message)));
    }
    let (value, kind) = (owned_value(result), result.kind);
    release_value(table, result);
    value.ok_or_else(|| error(PB_ERR_IO, format!("{function}: the host answered an unknown kind {kind}")))
}

fn error(status: pb_status_t, message: String) -> InvokeError {
    InvokeError { status, message }
}

/// A zeroed `pb_value_t` of kind `PB_VALUE_VOID`.
fn void_value() -> pb_value_t {
    pb_value_t {
        kind: PB_VALUE_VOID, boolean: false, integer: 0, unsigned_integer: 0, float_value: 0.0, double_value: 0.0,
        string: ptr::null(), bytes: pb_bytes_t { data: ptr::null(), size: 0 }, pointer: ptr::null_mut(),
    }
}

/// `argument` as a `pb_value_t`; `string` is the C copy of a `Str` argument.
fn c_value(argument: &Argument<'_>, string: Option<&CStr>) -> pb_value_t {
    let mut value = void_value();
    match *argument {
        Argument::Bool(b) => (value.kind, value.boolean) = (PB_VALUE_BOOL, b),
        Argument::Int(i) => (value.kind, value.integer) = (PB_VALUE_INT, i),
        Argument::UInt(u) => (value.kind, value.unsigned_integer) = (PB_VALUE_UINT, u),
        Argument::Float(f) => (value.kind, value.float_value) = (PB_VALUE_FLOAT, f),
        Argument::Double(d) => (value.kind, value.double_value) = (PB_VALUE_DOUBLE, d),
        Argument::Str(_) => (value.kind, value.string) = (PB_VALUE_STRING, string.map_or(ptr::null(), CStr::as_ptr)),
        Argument::Bytes(b) => (value.kind, value.bytes) = (PB_VALUE_BYTES, pb_bytes_t { data: b.as_ptr(), size: b.len() }),
        Argument::Pointer(p) => (value.kind, value.pointer) = (PB_VALUE_POINTER, p),
    }
    value
}

/// A copy of the host's `result`, or `None` for an unknown kind.
///
/// # Safety
/// `result` was written by the host's invoke on PB_OK.
unsafe fn owned_value(result: &pb_value_t) -> Option<Value> {
    Some(match result.kind {
        PB_VALUE_VOID => Value::Void,
        PB_VALUE_BOOL => Value::Bool(result.boolean),
        PB_VALUE_INT => Value::Int(result.integer),
        PB_VALUE_UINT => Value::UInt(result.unsigned_integer),
        PB_VALUE_FLOAT => Value::Float(result.float_value),
        PB_VALUE_DOUBLE => Value::Double(result.double_value),
        PB_VALUE_STRING if result.string.is_null() => Value::Str(String::new()),
        PB_VALUE_STRING => Value::Str(CStr::from_ptr(result.string).to_string_lossy().into_owned()),
        PB_VALUE_BYTES if result.bytes.data.is_null() => Value::Bytes(Vec::new()),
        PB_VALUE_BYTES => Value::Bytes(std::slice::from_raw_parts(result.bytes.data, result.bytes.size).to_vec()),
        PB_VALUE_POINTER => Value::Pointer(result.pointer),
        _ => return None,
    })
}
