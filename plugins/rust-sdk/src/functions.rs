//! Functions a plugin offers to be called by name (ABI 1.2, `functions.h`): methods of the
//! plugin type, declared with [`functions!`](macro@crate::functions) and listed as the concern
//! `FunctionsPlugin` in [`export_plugins!`](macro@crate::export_plugins).
//!
//! ```ignore
//! impl Units {
//!     fn convert(&self, from: &str, to: &str, value: f64) -> f64 { todo!() }
//! }
//! plugboard::functions! {
//!     Units {
//!         convert: fn(&str, &str, f64) -> f64, "Converts VALUE from unit FROM to unit TO";
//!     }
//! }
//! plugboard::export_plugins! { Units => [FunctionsPlugin] }
//! ```
//!
//! The macro writes one `extern "C"` wrapper per function with the C signature the type
//! language gives the declared Rust types, and derives the signature string
//! (`"double (string, string, double)"`) from the same types, so the wrapper, the method
//! (rustc checks the call) and the declaration cannot disagree. The types:
//!
//! | Rust | type | C parameters / result | result ownership |
//! |---|---|---|---|
//! | `bool`, `i8`…`i64`, `u8`…`u64`, `f32`, `f64` | `bool`, `int8`…, `float`, `double` | the same | – |
//! | `*mut c_void` | `pointer` | `void *` | – |
//! | `&str` (argument) | `string` | `const char *`, checked to be UTF-8 | – |
//! | `&[u8]` (argument) | `bytes` | `const uint8_t *`, `size_t` | – |
//! | `String` (result) | `string` | `const char *` | a `malloc`'d copy per call, freed by the SDK's `release` |
//! | `Vec<u8>` (result) | `bytes` | `pb_bytes_t` | a `malloc`'d copy per call, freed by the SDK's `release` |
//! | `&'static CStr` (result) | `string` | `const char *` | the plugin's, static (`release` NULL) |
//! | `&'static [u8]` (result) | `bytes` | `pb_bytes_t` | the plugin's, static (`release` NULL) |
//! | no `->` (`()`) | `void` | – | – |
//!
//! Write the argument types `&str` and `&[u8]` literally (the macro expands them into their
//! C parameters); any other type must implement [`ScalarArgument`].
//!
//! # Panics and errors are fail-closed
//!
//! Each wrapper runs the method inside `catch_unwind`. A panic, a string argument that is not
//! UTF-8 or a result that cannot cross (a `String` with a NUL byte, no memory for the copy) is
//! logged at error level for the plugin, `panic in function convert: <message>; answered NaN`
//! (`error in function …` for the others), and answered with the result type's fail value:
//! `false`, `0`, NaN, a null pointer, `""` (a static empty string, never freed), empty bytes,
//! or nothing for `void`. The caller cannot tell it from a real answer.

use crate::abi::pb_bytes_t;
use crate::plugin::Plugin;
use std::ffi::{c_char, c_void, CStr};

/// A plugin type that offers functions; implemented by [`functions!`](macro@crate::functions).
pub trait FunctionsPlugin: Plugin {
    /// Binds the wrappers to the plugin value at `instance` (the descriptor's `ctx`) and returns
    /// the C declarations. Called by the SDK in `register_plugins`.
    #[doc(hidden)]
    fn bind_functions(instance: *mut c_void) -> &'static [crate::abi::pb_function_t];
}

/// An argument type that crosses as itself: its name in the type language.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an argument of a plugin function",
    note = "use bool, i8…i64, u8…u64, f32, f64, *mut c_void, or write &str or &[u8] literally"
)]
pub trait ScalarArgument: Copy {
    /// The type's name in the signature language, e.g. `"int32"`.
    const NAME: &'static str;
}

/// A result type: its name in the signature language, its C type, ownership and fail value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the result of a plugin function",
    note = "use (), bool, i8…i64, u8…u64, f32, f64, *mut c_void, String, Vec<u8>, &'static CStr or &'static [u8]"
)]
pub trait FunctionResult {
    /// The C type the wrapper returns.
    type C;
    /// The type's name in the signature language, e.g. `"string"`.
    const NAME: &'static str;
    /// The declaration's `release`: the SDK's `free` for a per-call copy, else `None`.
    const RELEASE: Option<unsafe extern "C" fn(result: *mut c_void)>;
    /// The fail value as the log line names it, e.g. `"NaN"`.
    const FAIL_TEXT: &'static str;
    /// The C value, or why the result cannot cross.
    fn into_c(self) -> Result<Self::C, String>;
    /// The value answered after a panic or an error.
    fn fail() -> Self::C;
}

macro_rules! scalar {
    ($($rust:ty => $name:literal, $fail:expr, $fail_text:literal;)*) => {$(
        impl ScalarArgument for $rust {
            const NAME: &'static str = $name;
        }
        impl FunctionResult for $rust {
            type C = $rust;
            const NAME: &'static str = $name;
            const RELEASE: Option<unsafe extern "C" fn(result: *mut c_void)> = None;
            const FAIL_TEXT: &'static str = $fail_text;
            fn into_c(self) -> Result<$rust, String> {
                Ok(self)
            }
            fn fail() -> $rust {
                $fail
            }
        }
    )*};
}

scalar! {
    bool => "bool", false, "false";
    i8 => "int8", 0, "0";
    i16 => "int16", 0, "0";
    i32 => "int32", 0, "0";
    i64 => "int64", 0, "0";
    u8 => "uint8", 0, "0";
    u16 => "uint16", 0, "0";
    u32 => "uint32", 0, "0";
    u64 => "uint64", 0, "0";
    f32 => "float", f32::NAN, "NaN";
    f64 => "double", f64::NAN, "NaN";
    *mut c_void => "pointer", std::ptr::null_mut(), "NULL";
}

impl FunctionResult for () {
    type C = ();
    const NAME: &'static str = "void";
    const RELEASE: Option<unsafe extern "C" fn(result: *mut c_void)> = None;
    const FAIL_TEXT: &'static str = "nothing";
    fn into_c(self) -> Result<(), String> {
        Ok(())
    }
    fn fail() {}
}

/// The empty string a failed string function answers: static, so `release` skips it.
static EMPTY: [u8; 1] = [0];

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(pointer: *mut c_void);
}

/// `release` of a per-call copy: frees it, unless it is the static empty string. \[thread-safe\]
unsafe extern "C" fn release_copy(result: *mut c_void) {
    if result.cast_const().cast::<u8>() != EMPTY.as_ptr() {
        free(result);
    }
}

/// A `malloc`'d copy of `bytes` followed by a NUL byte.
fn copy_out(bytes: &[u8]) -> Result<*mut u8, String> {
    // SAFETY: malloc of at least one byte; the copy stays inside it.
    unsafe {
        let copy = malloc(bytes.len() + 1).cast::<u8>();
        if copy.is_null() {
            return Err(format!("no memory for a copy of {} bytes", bytes.len()));
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), copy, bytes.len());
        *copy.add(bytes.len()) = 0;
        Ok(copy)
    }
}

impl FunctionResult for String {
    type C = *const c_char;
    const NAME: &'static str = "string";
    const RELEASE: Option<unsafe extern "C" fn(result: *mut c_void)> = Some(release_copy);
    const FAIL_TEXT: &'static str = "\"\"";
    fn into_c(self) -> Result<*const c_char, String> {
        if self.contains('\0') {
            return Err("the string result contains a NUL byte".to_string());
        }
        copy_out(self.as_bytes()).map(|copy| copy.cast_const().cast())
    }
    fn fail() -> *const c_char {
        EMPTY.as_ptr().cast()
    }
}

impl FunctionResult for Vec<u8> {
    type C = pb_bytes_t;
    const NAME: &'static str = "bytes";
    const RELEASE: Option<unsafe extern "C" fn(result: *mut c_void)> = Some(release_copy);
    const FAIL_TEXT: &'static str = "empty bytes";
    fn into_c(self) -> Result<pb_bytes_t, String> {
        copy_out(&self).map(|copy| pb_bytes_t { data: copy.cast_const(), size: self.len() })
    }
    fn fail() -> pb_bytes_t {
        pb_bytes_t { data: std::ptr::null(), size: 0 }
    }
}

impl FunctionResult for &'static CStr {
    type C = *const c_char;
    const NAME: &'static str = "string";
    const RELEASE: Option<unsafe extern "C" fn(result: *mut c_void)> = None;
    const FAIL_TEXT: &'static str = "\"\"";
    fn into_c(self) -> Result<*const c_char, String> {
        Ok(self.as_ptr())
    }
    fn fail() -> *const c_char {
        EMPTY.as_ptr().cast()
    }
}

impl FunctionResult for &'static [u8] {
    type C = pb_bytes_t;
    const NAME: &'static str = "bytes";
    const RELEASE: Option<unsafe extern "C" fn(result: *mut c_void)> = None;
    const FAIL_TEXT: &'static str = "empty bytes";
    fn into_c(self) -> Result<pb_bytes_t, String> {
        Ok(pb_bytes_t { data: self.as_ptr(), size: self.len() })
    }
    fn fail() -> pb_bytes_t {
        pb_bytes_t { data: std::ptr::null(), size: 0 }
    }
}

/// A `string` argument as `&str`, or why it is not UTF-8.
///
/// # Safety
/// `text` is NUL-terminated and outlives `'a` (the host's, during the call).
#[doc(hidden)]
pub unsafe fn string_argument<'a>(text: *const c_char) -> Result<&'a str, String> {
    if text.is_null() {
        return Err("a string argument is NULL".to_string());
    }
    CStr::from_ptr(text).to_str().map_err(|error| format!("a string argument is not UTF-8: {error}"))
}

/// A `bytes` argument as `&[u8]`.
///
/// # Safety
/// `data` points to `size` bytes that outlive `'a`, or is NULL.
#[doc(hidden)]
pub unsafe fn bytes_argument<'a>(data: *const u8, size: usize) -> &'a [u8] {
    if data.is_null() || size == 0 { &[] } else { std::slice::from_raw_parts(data, size) }
}

/// The length of `parts` joined as a signature, `"R (A, B)"`, with its NUL byte.
#[doc(hidden)]
pub const fn signature_length(parts: &[&str]) -> usize {
    let mut length = parts[0].len() + 4; // "R (" + ")" + NUL
    let mut i = 1;
    while i < parts.len() {
        length += parts[i].len() + if i > 1 { 2 } else { 0 };
        i += 1;
    }
    length
}

/// `parts` (the result's name, then each argument's) joined as `"R (A, B)"` and a NUL byte.
#[doc(hidden)]
pub const fn signature<const N: usize>(parts: &[&str]) -> [u8; N] {
    let mut text = [0u8; N];
    let mut at = 0;
    let mut i = 0;
    while i < parts.len() {
        let separator: &[u8] = if i == 1 { b" (" } else if i > 1 { b", " } else { b"" };
        let mut j = 0;
        while j < separator.len() {
            text[at] = separator[j];
            at += 1;
            j += 1;
        }
        let part = parts[i].as_bytes();
        j = 0;
        while j < part.len() {
            text[at] = part[j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    if parts.len() == 1 {
        text[at] = b' ';
        text[at + 1] = b'(';
        at += 2;
    }
    text[at] = b')';
    text
}

/// The C declarations of a plugin type's functions, in a `static`. The raw pointers in it
/// point to static data only, so it may be shared between threads.
#[doc(hidden)]
pub struct FunctionTable(pub &'static [crate::abi::pb_function_t]);

// SAFETY: every pointer in the table is to immutable static data or a function.
unsafe impl Sync for FunctionTable {}

/// Declares the functions a plugin type offers and implements [`FunctionsPlugin`] for it:
///
/// ```ignore
/// plugboard::functions! {
///     Units {
///         convert: fn(&str, &str, f64) -> f64, "Converts VALUE from unit FROM to unit TO";
///         units: fn() -> String, "The units it knows";
///     }
/// }
/// ```
///
/// Each line names a method of the type (`&self` first, then the arguments listed) that
/// becomes the function of that name (`[a-z_][a-z0-9_]*`), its Rust signature, and a doc
/// string literal. List `FunctionsPlugin` among the type's concerns in `export_plugins!`.
/// A function may be called from any thread (functions.h): `&self` and `Sync` see to it.
#[macro_export]
macro_rules! functions {
    ($plugin:ty { $($name:ident : fn $arguments:tt $(-> $result:ty)?, $doc:literal);+ $(;)? }) => {
        const _: () = {
            /// The plugin value the wrappers call (the descriptor's `ctx`), bound in register_plugins.
            static INSTANCE: ::std::sync::atomic::AtomicPtr<::std::ffi::c_void> =
                ::std::sync::atomic::AtomicPtr::new(::std::ptr::null_mut());
            static TABLE: $crate::functions::FunctionTable = $crate::functions::FunctionTable(&[$(
                $crate::functions!(@declare $plugin, INSTANCE, $name, [$($result)?], $doc, $arguments)
            ),+]);
            impl $crate::FunctionsPlugin for $plugin {
                fn bind_functions(instance: *mut ::std::ffi::c_void) -> &'static [$crate::abi::pb_function_t] {
                    INSTANCE.store(instance, ::std::sync::atomic::Ordering::Release);
                    TABLE.0
                }
            }
        };
    };

    (@declare $plugin:ty, $instance:ident, $name:ident, [], $doc:literal, $arguments:tt) => {
        $crate::functions!(@declare $plugin, $instance, $name, [()], $doc, $arguments)
    };
    (@declare $plugin:ty, $instance:ident, $name:ident, [$result:ty], $doc:literal, ()) => {
        $crate::functions!(@wrap $plugin, $instance, $name, $result, $doc, [] [] [])
    };
    (@declare $plugin:ty, $instance:ident, $name:ident, [$result:ty], $doc:literal, ($($argument:tt)+)) => {
        $crate::functions!(@argument $plugin, $instance, $name, $result, $doc, [$($argument)+ ,] [] [] [])
    };

    // One argument at a time: its C parameters, the expression that rebuilds it, its type name.
    (@argument $plugin:ty, $instance:ident, $name:ident, $result:ty, $doc:literal,
     [& str, $($rest:tt)*] [$($parameters:tt)*] [$($values:tt)*] [$($names:tt)*]) => {
        $crate::functions!(@argument $plugin, $instance, $name, $result, $doc, [$($rest)*]
            [$($parameters)* text: *const ::std::ffi::c_char,]
            [$($values)* $crate::functions::string_argument(text)?,]
            [$($names)* "string",])
    };
    (@argument $plugin:ty, $instance:ident, $name:ident, $result:ty, $doc:literal,
     [& [u8], $($rest:tt)*] [$($parameters:tt)*] [$($values:tt)*] [$($names:tt)*]) => {
        $crate::functions!(@argument $plugin, $instance, $name, $result, $doc, [$($rest)*]
            [$($parameters)* data: *const u8, size: usize,]
            [$($values)* $crate::functions::bytes_argument(data, size),]
            [$($names)* "bytes",])
    };
    (@argument $plugin:ty, $instance:ident, $name:ident, $result:ty, $doc:literal,
     [$scalar:ty, $($rest:tt)*] [$($parameters:tt)*] [$($values:tt)*] [$($names:tt)*]) => {
        $crate::functions!(@argument $plugin, $instance, $name, $result, $doc, [$($rest)*]
            [$($parameters)* value: $scalar,]
            [$($values)* value,]
            [$($names)* <$scalar as $crate::ScalarArgument>::NAME,])
    };
    (@argument $plugin:ty, $instance:ident, $name:ident, $result:ty, $doc:literal,
     [] [$($parameters:tt)*] [$($values:tt)*] [$($names:tt)*]) => {
        $crate::functions!(@wrap $plugin, $instance, $name, $result, $doc, [$($parameters)*] [$($values)*] [$($names)*])
    };

    (@wrap $plugin:ty, $instance:ident, $name:ident, $result:ty, $doc:literal,
     [$($parameter:ident : $type:ty,)*] [$($value:expr,)*] [$($type_name:expr,)*]) => {{
        unsafe extern "C" fn wrapper($($parameter: $type),*) -> <$result as $crate::FunctionResult>::C {
            $crate::__export::call_function::<$plugin, $result>(
                $instance.load(::std::sync::atomic::Ordering::Acquire),
                stringify!($name),
                |plugin| Ok(plugin.$name($($value),*)),
            )
        }
        const PARTS: &[&str] = &[<$result as $crate::FunctionResult>::NAME, $($type_name),*];
        static SIGNATURE: [u8; $crate::functions::signature_length(PARTS)] = $crate::functions::signature(PARTS);
        $crate::abi::pb_function_t {
            struct_size: ::std::mem::size_of::<$crate::abi::pb_function_t>() as u32,
            name: concat!(stringify!($name), "\0").as_ptr().cast(),
            signature: SIGNATURE.as_ptr().cast(),
            doc: concat!($doc, "\0").as_ptr().cast(),
            // SAFETY: the host calls it with the C signature SIGNATURE stands for, which is wrapper's.
            function: Some(unsafe {
                ::std::mem::transmute::<unsafe extern "C" fn($($type),*) -> <$result as $crate::FunctionResult>::C,
                                        unsafe extern "C" fn()>(wrapper)
            }),
            release: <$result as $crate::FunctionResult>::RELEASE,
        }
    }};
}
