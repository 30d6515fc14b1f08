//! The notification bus (`pb_host_t.notifications`, ABI 1.3): [`Host::post`], [`Host::observe`]
//! and [`Host::stop_observing`], on behalf of the plugin the [`Host`] was made for.

use crate::abi::*;
use crate::host::{Host, Level};
use std::ffi::{c_char, c_void, CStr, CString};
use std::mem::{offset_of, size_of};

/// One notification as an observer receives it, copied out of the host's strings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// The reverse-DNS name, e.g. `com.example.network.status`.
    pub name: String,
    /// The payload: the text of one JSON object.
    pub payload: String,
    /// Who posted it: a plugin id, or "plugboard" for the host or an events script.
    pub sender: String,
}

/// An observation [`Host::observe`] made; end it with [`Host::stop_observing`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Observation(u64);

/// A bus call the host refused: the `PB_ERR_*` status and what was asked (the host logs the cause).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusError {
    /// The negative `PB_ERR_*` code.
    pub status: pb_status_t,
    /// "post com.example.x: refused with status -1 (the host's log says why)".
    pub message: String,
}

impl std::fmt::Display for BusError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for BusError {}

/// An observer's handler and the host to log its panics to, as the C observer's `ctx`.
struct Observer {
    host: Host,
    handler: Box<dyn Fn(&Notification) + Send + Sync>,
}

impl Host {
    /// Posts `name` with `payload_json` (JSON object text) on behalf of this plugin. Any thread;
    /// the host delivers it after the current callback returned.
    pub fn post(&self, name: &str, payload_json: &str) -> Result<(), BusError> {
        let call = format!("post {name}");
        let (bus, id) = self.bus(&call)?;
        let (name, payload) = (text(name, &call)?, text(payload_json, &call)?);
        let post = bus.post.ok_or_else(|| unavailable(&call))?;
        // SAFETY: the table and the strings are valid; the host copies them.
        check(unsafe { post(self.table, id.as_ptr(), name.as_ptr(), payload.as_ptr()) }, &call)
    }

    /// Calls `handler` on the host's dispatch thread for every notification named `name`, on behalf
    /// of this plugin (its priority orders it among the observers). A panic in `handler` is caught
    /// and logged (`panic in notification observer: …`). The handler lives for the rest of the process.
    pub fn observe(&self, name: &str, handler: impl Fn(&Notification) + Send + Sync + 'static) -> Result<Observation, BusError> {
        let call = format!("observe {name}");
        let (bus, id) = self.bus(&call)?;
        let name = text(name, &call)?;
        let observe = bus.observe.ok_or_else(|| unavailable(&call))?;
        let observer = Box::into_raw(Box::new(Observer { host: self.clone(), handler: Box::new(handler) }));
        let mut token = 0u64;
        // SAFETY: valid table and strings; `observer` stays valid for the life of the process.
        let status = unsafe { observe(self.table, id.as_ptr(), name.as_ptr(), Some(deliver), observer.cast(), &mut token) };
        if status != PB_OK {
            // SAFETY: the host refused the observation, so it never calls with `observer`.
            drop(unsafe { Box::from_raw(observer) });
        }
        check(status, &call).map(|()| Observation(token))
    }

    /// Ends `observation`: called on the host's dispatch thread (from a callback or the handler itself), its
    /// handler is not called again; from another thread, a call already under way may still run. Any thread.
    pub fn stop_observing(&self, observation: Observation) -> Result<(), BusError> {
        let call = format!("stop observing {}", observation.0);
        let (bus, _) = self.bus(&call)?;
        let stop = bus.stop_observing.ok_or_else(|| unavailable(&call))?;
        // SAFETY: a valid table.
        check(unsafe { stop(self.table, observation.0) }, &call)
    }

    /// The bus and this plugin's id, when the host's table covers the bus (ABI 1.3) and the Host is a plugin's.
    fn bus(&self, call: &str) -> Result<(&'static pb_notifications_t, &CString), BusError> {
        let end = offset_of!(pb_host_t, notifications) + size_of::<*const pb_notifications_t>();
        // SAFETY: a non-NULL `notifications` in a table that covers it is host-owned and lives for the process.
        let bus = if self.table.struct_size as usize >= end { unsafe { self.table.notifications.as_ref() } } else { None };
        let bus = bus.ok_or_else(|| unavailable(call))?;
        let id = self.plugin_id.as_ref().ok_or_else(|| BusError {
            status: PB_ERR_INVALID_ARGUMENT,
            message: format!("{call}: the bus is used on behalf of a plugin, and this Host is the library's"),
        })?;
        Ok((bus, id))
    }
}

/// The C observer: copies the host's strings and calls the handler, catching a panic.
unsafe extern "C" fn deliver(ctx: *mut c_void, name: *const c_char, payload: *const c_char, sender: *const c_char) {
    let Some(observer) = ctx.cast::<Observer>().as_ref() else { return };
    let copy = |text: *const c_char| if text.is_null() { String::new() } else { CStr::from_ptr(text).to_string_lossy().into_owned() };
    let notification = Notification { name: copy(name), payload: copy(payload), sender: copy(sender) };
    if let Err(message) = crate::__export::caught(|| (observer.handler)(&notification)) {
        observer.host.log(Level::Error, &format!("panic in notification observer: {message}"));
    }
}

fn text(value: &str, call: &str) -> Result<CString, BusError> {
    CString::new(value).map_err(|_| BusError { status: PB_ERR_INVALID_ARGUMENT, message: format!("{call}: a NUL byte in {value:?}") })
}

fn unavailable(call: &str) -> BusError {
    BusError { status: PB_ERR_UNAVAILABLE, message: format!("{call}: this host has no notification bus (ABI 1.3 is needed)") }
}

fn check(status: pb_status_t, call: &str) -> Result<(), BusError> {
    if status == PB_OK {
        Ok(())
    } else {
        Err(BusError { status, message: format!("{call}: refused with status {status} (the host's log says why)") })
    }
}
