//! Functions of every type `plugboard::functions!` maps, called by RustFunctionTests through
//! the host's engine; the `fail_*` ones panic or return what cannot cross.

use plugboard::{Host, Plugin};
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicI32, Ordering};

struct Functions {
    calls: AtomicI32,
}

impl Plugin for Functions {
    const ID: &'static str = "com.example.rustfunctions";
    fn new(_host: Host) -> Result<Self, String> {
        Ok(Functions { calls: AtomicI32::new(0) })
    }
}

impl Functions {
    fn scale(&self, value: f64, factor: i32) -> f64 {
        self.calls.fetch_add(1, Ordering::Relaxed);
        value * f64::from(factor)
    }
    fn count(&self) -> i32 {
        self.calls.load(Ordering::Relaxed)
    }
    fn reset(&self) {
        self.calls.store(0, Ordering::Relaxed);
    }
    fn negate8(&self, value: i8) -> i8 {
        value.wrapping_neg()
    }
    fn add64(&self, a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    fn is_empty(&self, text: &str) -> bool {
        text.is_empty()
    }
    fn half(&self, value: f32) -> f32 {
        value / 2.0
    }
    fn greet(&self, name: &str) -> String {
        format!("hello, {name}")
    }
    fn kind(&self) -> &'static CStr {
        c"static"
    }
    fn reversed(&self, data: &[u8], add: u8) -> Vec<u8> {
        data.iter().rev().map(|byte| byte.wrapping_add(add)).collect()
    }
    fn magic(&self) -> &'static [u8] {
        b"PB"
    }
    fn same(&self, pointer: *mut c_void) -> *mut c_void {
        pointer
    }
    fn fail_double(&self, why: &str) -> f64 {
        panic!("{why}")
    }
    fn fail_string(&self) -> String {
        "nul\0inside".to_string()
    }
    fn fail_int(&self) -> i64 {
        panic!("no int")
    }
    fn fail_bytes(&self) -> Vec<u8> {
        panic!("no bytes")
    }
    fn fail_void(&self) {
        panic!("no void")
    }
}

plugboard::functions! {
    Functions {
        scale: fn(f64, i32) -> f64, "value times factor";
        count: fn() -> i32, "";
        reset: fn(), "";
        negate8: fn(i8) -> i8, "";
        add64: fn(u64, u64) -> u64, "";
        is_empty: fn(&str) -> bool, "";
        half: fn(f32) -> f32, "";
        greet: fn(&str) -> String, "a greeting, malloc'd per call";
        kind: fn() -> &'static CStr, "";
        reversed: fn(&[u8], u8) -> Vec<u8>, "";
        magic: fn() -> &'static [u8], "";
        same: fn(*mut c_void) -> *mut c_void, "";
        fail_double: fn(&str) -> f64, "";
        fail_string: fn() -> String, "";
        fail_int: fn() -> i64, "";
        fail_bytes: fn() -> Vec<u8>, "";
        fail_void: fn(), "";
    }
}

plugboard::export_plugins! {
    Functions => [FunctionsPlugin],
}
