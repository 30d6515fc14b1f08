//! What `export_plugins!` expands to: the library's state, the `extern "C"` trampolines
//! with their `catch_unwind`, and registration. Not for direct use.
#![doc(hidden)]
#![allow(non_snake_case)] // the attach functions are named after their concern traits

use crate::abi::*;
use crate::completion::FetchCompletion;
use crate::functions::FunctionResult;
use crate::host::{Host, Level};
use crate::plugin::*;
use std::any::Any;
use std::ffi::{c_char, c_void, CStr, CString};
use std::marker::PhantomData;
use std::mem::size_of;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A plugin and the host services that speak for it: what `ctx` points to.
struct Instance<T> {
    host: Host,
    plugin: T,
}

/// The state of one library: the host's table while initialized, and its plugins.
pub struct Library {
    host: AtomicPtr<pb_host_t>,
    instances: Mutex<Vec<Box<dyn Any + Send + Sync>>>,
}

impl Library {
    /// A library that is not initialized.
    pub const fn new() -> Library {
        Library { host: AtomicPtr::new(ptr::null_mut()), instances: Mutex::new(Vec::new()) }
    }

    /// `init`: keeps the host's table.
    pub fn init(&self, host: *const pb_host_t) -> bool {
        self.host.store(host.cast_mut(), Ordering::Release);
        !host.is_null()
    }

    /// `deinit`: drops every plugin (a panic in a `Drop` is logged) and forgets the host.
    pub fn deinit(&self) {
        let instances = std::mem::take(&mut *self.instances());
        // SAFETY: the table `init` kept, valid for the life of the process (or NULL).
        let host = unsafe { Host::new(self.host.load(Ordering::Acquire), None) };
        if let (Err(message), Some(host)) = (caught(move || drop(instances)), host) {
            host.log(Level::Error, &format!("panic while dropping the plugins in deinit: {message}"));
        }
        self.host.store(ptr::null_mut(), Ordering::Release);
    }

    /// The plugins, also after a panic while the lock was held (they are only added or dropped).
    fn instances(&self) -> MutexGuard<'_, Vec<Box<dyn Any + Send + Sync>>> {
        self.instances.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `register_plugins`: calls `register` with a `Registration`; false if any plugin failed
    /// or `register` panicked (logged).
    ///
    /// # Safety
    /// `registrar` is the pointer the host passed to `register_plugins`.
    pub unsafe fn register_plugins(&self, registrar: *const pb_registrar_t, register: fn(&mut Registration)) -> bool {
        let Some(registrar) = registrar.as_ref() else { return false };
        let Some(host) = Host::new(registrar.host, None) else { return false };
        let mut registration = Registration { library: self, registrar, host: host.clone(), succeeded: true };
        match caught(|| register(&mut registration)) {
            Ok(()) => registration.succeeded,
            Err(message) => {
                host.log(Level::Error, &format!("panic in register_plugins: {message}"));
                false
            }
        }
    }
}

impl Default for Library {
    fn default() -> Library {
        Library::new()
    }
}

/// Adds plugins through the host's registrar while `register_plugins` runs.
pub struct Registration<'a> {
    library: &'a Library,
    registrar: &'a pb_registrar_t,
    host: Host,
    succeeded: bool,
}

impl Registration<'_> {
    /// Makes a `T` and adds it with the concerns `attach` sets; a failure is logged.
    pub fn add<T: Plugin>(&mut self, attach: fn(&mut pb_plugin_t)) {
        if let Err(reason) = self.try_add::<T>(attach) {
            self.host.log(Level::Error, &format!("plugin {:?} not added: {reason}", T::ID));
            self.succeeded = false;
        }
    }

    fn try_add<T: Plugin>(&mut self, attach: fn(&mut pb_plugin_t)) -> Result<(), String> {
        let text = |value: &str, what: &str| CString::new(value).map_err(|_| format!("its {what} contains a NUL byte"));
        let id = text(T::ID, "id")?;
        let name = text(T::NAME, "name")?;
        let version = text(T::VERSION, "version")?;
        // SAFETY: the registrar's table is the host's, valid for the life of the process.
        let host = unsafe { Host::new(self.registrar.host, Some(id.clone())) }.ok_or("the registrar has no host table")?;
        let plugin = caught(|| T::new(host.clone()))
            .map_err(|message| format!("panic in new: {message}"))?
            .map_err(|reason| format!("new failed: {reason}"))?;
        let instance = Box::new(Instance { host, plugin });
        let mut descriptor = pb_plugin_t {
            struct_size: size_of::<pb_plugin_t>() as u32,
            priority: T::PRIORITY,
            id: id.as_ptr(),
            name: name.as_ptr(),
            version: version.as_ptr(),
            ctx: ptr::from_ref::<Instance<T>>(&instance).cast_mut().cast::<c_void>(),
            launch: ptr::null(), open_url: ptr::null(), user_activity: ptr::null(),
            remote_notifications: ptr::null(), memory: ptr::null(), protected_data: ptr::null(),
            app_state: ptr::null(), termination: ptr::null(),
            functions: ptr::null(), function_count: 0, saved_state: ptr::null(),
        };
        attach(&mut descriptor);
        let add_plugin = self.registrar.add_plugin.ok_or("the registrar has no add_plugin")?;
        // SAFETY: valid registrar and descriptor; the host copies the descriptor and its strings.
        let status = unsafe { add_plugin(self.registrar, &descriptor) };
        if status != PB_OK {
            return Err(format!("the host refused it with status {status}"));
        }
        self.library.instances().push(instance);
        Ok(())
    }
}

/// Runs `body`, catching a panic: its message is the error. The payload is dropped inside
/// `catch_unwind` too, since a panicking destructor must not unwind into the host either.
pub(crate) fn caught<R>(body: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(body)).map_err(|payload| {
        let message = if let Some(text) = payload.downcast_ref::<&str>() {
            (*text).to_string()
        } else if let Some(text) = payload.downcast_ref::<String>() {
            text.clone()
        } else {
            "a panic with a payload that is not text".to_string()
        };
        let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
        message
    })
}

/// Runs `body` for the plugin at `ctx`; a panic is logged for that plugin, naming
/// `callback`, and answered with `fail_closed`.
///
/// # Safety
/// `ctx` is the `ctx` of a descriptor that `Registration::add::<T>` added.
unsafe fn guard<T: Plugin, R>(ctx: *mut c_void, callback: &str, fail_closed: R, body: impl FnOnce(&T) -> R) -> R {
    let instance = &*ctx.cast::<Instance<T>>();
    caught(|| body(&instance.plugin)).unwrap_or_else(|message| {
        instance.host.log(Level::Error, &format!("panic in {callback}: {message}"));
        fail_closed
    })
}

/// Runs the function `name` of the plugin at `ctx` (bound by `FunctionsPlugin::bind_functions`)
/// and converts its result to C. A panic or an error is logged for the plugin, with the
/// answer, and answered with `R::fail()`.
///
/// # Safety
/// `ctx` is NULL or the `ctx` of a descriptor that `Registration::add::<T>` added.
pub unsafe fn call_function<T: Plugin, R: FunctionResult>(ctx: *mut c_void, name: &str,
                                                          body: impl FnOnce(&T) -> Result<R, String>) -> R::C {
    let Some(instance) = ctx.cast::<Instance<T>>().as_ref() else { return R::fail() };
    let failure = match caught(|| body(&instance.plugin).and_then(R::into_c)) {
        Ok(Ok(value)) => return value,
        Ok(Err(reason)) => format!("error in function {name}: {reason}"),
        Err(message) => format!("panic in function {name}: {message}"),
    };
    instance.host.log(Level::Error, &format!("{failure}; answered {}", R::FAIL_TEXT));
    R::fail()
}

/// The `len` bytes at `text` as text, borrowed unchecked: the host passes plugins UTF-8 only (the
/// C ABI's promise, which a plugin built for 1.5 relies on, as an older host refuses it), so the
/// text is validated once, where the host made it, not again in every plugin.
unsafe fn text<'a>(text: *const c_char, len: usize) -> &'a str {
    // SAFETY: the host's texts are UTF-8 (include/plugboard/types.h).
    std::str::from_utf8_unchecked(bytes(text.cast::<u8>(), len))
}

/// The `len` bytes at `data` (none for NULL).
unsafe fn bytes<'a>(data: *const u8, len: usize) -> &'a [u8] {
    if data.is_null() || len == 0 { &[] } else { std::slice::from_raw_parts(data, len) }
}

/// The static vtables of `T`, one associated constant per concern (promoted to `'static`).
struct Tables<T>(PhantomData<T>);

impl<T: LaunchPlugin> Tables<T> {
    const LAUNCH: pb_launch_t = pb_launch_t {
        struct_size: size_of::<pb_launch_t>() as u32,
        will_finish_launching: Some(will_finish_launching::<T>),
        did_finish_launching: Some(did_finish_launching::<T>),
    };
}
unsafe extern "C" fn will_finish_launching<T: LaunchPlugin>(ctx: *mut c_void, options: *const c_char, len: usize) -> bool {
    guard::<T, _>(ctx, "will_finish_launching", false, |plugin| plugin.will_finish_launching(text(options, len)))
}
unsafe extern "C" fn did_finish_launching<T: LaunchPlugin>(ctx: *mut c_void, options: *const c_char, len: usize) -> bool {
    guard::<T, _>(ctx, "did_finish_launching", false, |plugin| plugin.did_finish_launching(text(options, len)))
}
/// Attaches `T`'s launch vtable.
pub fn LaunchPlugin<T: crate::LaunchPlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.launch = &Tables::<T>::LAUNCH;
}

impl<T: OpenUrlPlugin> Tables<T> {
    const OPEN_URL: pb_open_url_t = pb_open_url_t { struct_size: size_of::<pb_open_url_t>() as u32, open_url: Some(open_url::<T>) };
}
unsafe extern "C" fn open_url<T: OpenUrlPlugin>(ctx: *mut c_void, url: *const c_char, url_len: usize, options: *const c_char, options_len: usize) -> bool {
    guard::<T, _>(ctx, "open_url", false, |plugin| plugin.open_url(text(url, url_len), text(options, options_len)))
}
/// Attaches `T`'s open-url vtable.
pub fn OpenUrlPlugin<T: crate::OpenUrlPlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.open_url = &Tables::<T>::OPEN_URL;
}

impl<T: UserActivityPlugin> Tables<T> {
    const USER_ACTIVITY: pb_user_activity_t = pb_user_activity_t {
        struct_size: size_of::<pb_user_activity_t>() as u32,
        continue_user_activity: Some(continue_user_activity::<T>),
    };
}
unsafe extern "C" fn continue_user_activity<T: UserActivityPlugin>(ctx: *mut c_void, kind: *const c_char, kind_len: usize, info: *const c_char, info_len: usize) -> bool {
    guard::<T, _>(ctx, "continue_user_activity", false, |plugin| plugin.continue_user_activity(text(kind, kind_len), text(info, info_len)))
}
/// Attaches `T`'s user-activity vtable.
pub fn UserActivityPlugin<T: crate::UserActivityPlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.user_activity = &Tables::<T>::USER_ACTIVITY;
}

impl<T: RemoteNotificationsPlugin> Tables<T> {
    const REMOTE_NOTIFICATIONS: pb_remote_notifications_t = pb_remote_notifications_t {
        struct_size: size_of::<pb_remote_notifications_t>() as u32,
        did_register: Some(did_register::<T>),
        did_fail_to_register: Some(did_fail_to_register::<T>),
        did_receive_remote_notification: Some(did_receive_remote_notification::<T>),
    };
}
unsafe extern "C" fn did_register<T: RemoteNotificationsPlugin>(ctx: *mut c_void, token: *const u8, len: usize) {
    guard::<T, _>(ctx, "did_register", (), |plugin| plugin.did_register(bytes(token, len)))
}
unsafe extern "C" fn did_fail_to_register<T: RemoteNotificationsPlugin>(ctx: *mut c_void, error: *const c_char, len: usize) {
    guard::<T, _>(ctx, "did_fail_to_register", (), |plugin| plugin.did_fail_to_register(text(error, len)))
}
/// A panic drops the completion unanswered, which answers `Failed`.
unsafe extern "C" fn did_receive_remote_notification<T: RemoteNotificationsPlugin>(ctx: *mut c_void, info: *const c_char, len: usize, completion: *const pb_fetch_completion_t) {
    let completion = FetchCompletion::new(completion);
    guard::<T, _>(ctx, "did_receive_remote_notification", (), |plugin| plugin.did_receive_remote_notification(text(info, len), completion))
}
/// Attaches `T`'s remote-notifications vtable.
pub fn RemoteNotificationsPlugin<T: crate::RemoteNotificationsPlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.remote_notifications = &Tables::<T>::REMOTE_NOTIFICATIONS;
}

/// Defines a broadcast trampoline: no arguments, no answer, nothing after a panic.
macro_rules! broadcast {
    ($concern:ident, $method:ident) => {
        unsafe extern "C" fn $method<T: $concern>(ctx: *mut c_void) {
            guard::<T, _>(ctx, stringify!($method), (), |plugin| plugin.$method())
        }
    };
}

impl<T: MemoryPlugin> Tables<T> {
    const MEMORY: pb_memory_t = pb_memory_t {
        struct_size: size_of::<pb_memory_t>() as u32,
        did_receive_memory_warning: Some(did_receive_memory_warning::<T>),
    };
}
broadcast!(MemoryPlugin, did_receive_memory_warning);
/// Attaches `T`'s memory vtable.
pub fn MemoryPlugin<T: crate::MemoryPlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.memory = &Tables::<T>::MEMORY;
}

impl<T: ProtectedDataPlugin> Tables<T> {
    const PROTECTED_DATA: pb_protected_data_t = pb_protected_data_t {
        struct_size: size_of::<pb_protected_data_t>() as u32,
        will_become_unavailable: Some(will_become_unavailable::<T>),
        did_become_available: Some(did_become_available::<T>),
    };
}
broadcast!(ProtectedDataPlugin, will_become_unavailable);
broadcast!(ProtectedDataPlugin, did_become_available);
/// Attaches `T`'s protected-data vtable.
pub fn ProtectedDataPlugin<T: crate::ProtectedDataPlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.protected_data = &Tables::<T>::PROTECTED_DATA;
}

impl<T: AppStatePlugin> Tables<T> {
    const APP_STATE: pb_app_state_t = pb_app_state_t {
        struct_size: size_of::<pb_app_state_t>() as u32,
        did_become_active: Some(did_become_active::<T>),
        will_resign_active: Some(will_resign_active::<T>),
        did_enter_background: Some(did_enter_background::<T>),
        will_enter_foreground: Some(will_enter_foreground::<T>),
    };
}
broadcast!(AppStatePlugin, did_become_active);
broadcast!(AppStatePlugin, will_resign_active);
broadcast!(AppStatePlugin, did_enter_background);
broadcast!(AppStatePlugin, will_enter_foreground);
/// Attaches `T`'s app-state vtable.
pub fn AppStatePlugin<T: crate::AppStatePlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.app_state = &Tables::<T>::APP_STATE;
}

impl<T: TerminationPlugin> Tables<T> {
    const TERMINATION: pb_termination_t = pb_termination_t {
        struct_size: size_of::<pb_termination_t>() as u32,
        will_terminate: Some(will_terminate::<T>),
    };
}
broadcast!(TerminationPlugin, will_terminate);
/// Attaches `T`'s termination vtable.
pub fn TerminationPlugin<T: crate::TerminationPlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.termination = &Tables::<T>::TERMINATION;
}

impl<T: SavedStatePlugin> Tables<T> {
    const SAVED_STATE: pb_saved_state_t = pb_saved_state_t {
        struct_size: size_of::<pb_saved_state_t>() as u32,
        save_state: Some(save_state::<T>),
        release_state: Some(release_state),
        restore_state: Some(restore_state::<T>),
    };
}
/// Gives the plugin's bytes as a leaked `Box<[u8]>` that `release_state` takes back.
unsafe extern "C" fn save_state<T: SavedStatePlugin>(ctx: *mut c_void, out: *mut pb_bytes_t) -> pb_status_t {
    let Some(state) = guard::<T, _>(ctx, "save_state", None, |plugin| plugin.save_state()) else { return PB_ERR_UNAVAILABLE };
    if out.is_null() {
        return PB_ERR_INVALID_ARGUMENT;
    }
    let state = state.into_boxed_slice();
    let size = state.len();
    *out = pb_bytes_t { data: Box::into_raw(state).cast::<u8>(), size };
    PB_OK
}
/// Frees the bytes `save_state` gave.
unsafe extern "C" fn release_state(_ctx: *mut c_void, data: *const u8, size: usize) {
    drop(Box::from_raw(ptr::slice_from_raw_parts_mut(data.cast_mut(), size)));
}
unsafe extern "C" fn restore_state<T: SavedStatePlugin>(ctx: *mut c_void, saved_version: *const c_char, data: *const u8,
                                                        size: usize) -> pb_status_t {
    let version = if saved_version.is_null() { std::borrow::Cow::Borrowed("") } else { CStr::from_ptr(saved_version).to_string_lossy() };
    let taken = guard::<T, _>(ctx, "restore_state", false, |plugin| plugin.restore_state(bytes(data, size), &version));
    if taken { PB_OK } else { PB_ERR_INVALID_ARGUMENT }
}
/// Attaches `T`'s saved-state vtable.
pub fn SavedStatePlugin<T: crate::SavedStatePlugin>(descriptor: &mut pb_plugin_t) {
    descriptor.saved_state = &Tables::<T>::SAVED_STATE;
}

/// Attaches `T`'s functions (declared with `functions!`) and binds them to the plugin value.
pub fn FunctionsPlugin<T: crate::FunctionsPlugin>(descriptor: &mut pb_plugin_t) {
    let table = T::bind_functions(descriptor.ctx);
    descriptor.functions = table.as_ptr();
    descriptor.function_count = table.len() as u32;
}

/// Exports `plugboard_entry` for the listed plugin types and their concerns:
///
/// ```ignore
/// plugboard::export_plugins! {
///     DeepLinks => [LaunchPlugin, OpenUrlPlugin],
///     Janitor => [MemoryPlugin],
/// }
/// ```
///
/// Each type implements `Plugin` and every concern trait listed after it (`FunctionsPlugin`:
/// the functions declared with `functions!`). The library's
/// `init` keeps the host's table, `register_plugins` makes one value of each type (in this
/// order) and adds it, and `deinit` drops them all. Use it once per library.
#[macro_export]
macro_rules! export_plugins {
    ($($plugin:ty => [$($concern:ident),* $(,)?]),+ $(,)?) => {
        /// The entry symbol of this library. [dispatch-thread]
        #[no_mangle]
        pub extern "C" fn plugboard_entry() -> *const $crate::abi::pb_entry_t {
            static LIBRARY: $crate::__export::Library = $crate::__export::Library::new();
            unsafe extern "C" fn init(host: *const $crate::abi::pb_host_t) -> bool {
                LIBRARY.init(host)
            }
            unsafe extern "C" fn deinit() {
                LIBRARY.deinit()
            }
            unsafe extern "C" fn register_plugins(registrar: *const $crate::abi::pb_registrar_t) -> bool {
                LIBRARY.register_plugins(registrar, |registration| {
                    $(registration.add::<$plugin>(|descriptor| {
                        $($crate::__export::$concern::<$plugin>(descriptor);)*
                    });)+
                })
            }
            static ENTRY: $crate::abi::pb_entry_t = $crate::abi::pb_entry_t {
                struct_size: ::std::mem::size_of::<$crate::abi::pb_entry_t>() as u32,
                abi_major: $crate::abi::PB_ABI_VERSION_MAJOR,
                abi_minor: $crate::abi::PB_ABI_VERSION_MINOR,
                init: Some(init),
                deinit: Some(deinit),
                register_plugins: Some(register_plugins),
            };
            &ENTRY
        }
    };
}
