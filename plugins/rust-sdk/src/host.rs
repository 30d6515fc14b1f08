//! The host's services, the Rust way: a log attributed to the plugin, and the files service.

use crate::abi::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;

/// Severity of a log message (`PB_LOG_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Fine-grained tracing, hidden unless the operator asks for it.
    Trace = PB_LOG_TRACE as isize,
    /// Diagnostic detail.
    Debug = PB_LOG_DEBUG as isize,
    /// Normal operation worth noting.
    Info = PB_LOG_INFO as isize,
    /// Something odd that the plugin recovered from.
    Warning = PB_LOG_WARNING as isize,
    /// A failure.
    Error = PB_LOG_ERROR as isize,
}

/// A failed files call: the `PB_ERR_*` status and the host's sentence that explains it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilesError {
    /// One of the negative `PB_ERR_*` codes.
    pub status: pb_status_t,
    /// The operation, the path and the cause, in the host's words.
    pub message: String,
}

impl std::fmt::Display for FilesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (status {})", self.message, self.status)
    }
}

impl std::error::Error for FilesError {}

impl FilesError {
    /// Whether the host's policy denies this library the files service (`PB_ERR_DENIED`, since 1.3).
    pub fn is_denied(&self) -> bool {
        self.status == PB_ERR_DENIED
    }
}

/// Flags of the files calls that create a destination (`PB_FILES_*`); combine with `|`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileFlags(pub u32);

impl FileFlags {
    /// Keep an existing destination (an existing one is `PB_ERR_EXISTS`).
    pub const NONE: FileFlags = FileFlags(0);
    /// Replace an existing destination.
    pub const OVERWRITE: FileFlags = FileFlags(PB_FILES_OVERWRITE);
    /// Create missing folders of the destination.
    pub const CREATE_FOLDERS: FileFlags = FileFlags(PB_FILES_CREATE_FOLDERS);
}

impl std::ops::BitOr for FileFlags {
    type Output = FileFlags;
    fn bitor(self, other: FileFlags) -> FileFlags {
        FileFlags(self.0 | other.0)
    }
}

/// A file's attributes (`pb_file_attributes_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileAttributes {
    /// One of `PB_FILE_KIND_*`.
    pub kind: pb_file_kind_t,
    /// Size in bytes.
    pub size: u64,
    /// POSIX permission bits.
    pub permissions: u32,
    /// Owner user id.
    pub owner_id: u32,
    /// Last modification, nanoseconds since 1970-01-01 UTC.
    pub modified_ns: i64,
    /// Creation, nanoseconds since 1970-01-01 UTC; 0 when not recorded.
    pub created_ns: i64,
}

/// The host's services on behalf of one plugin. Cheap to clone, and usable from any thread
/// (the host's log and files functions are thread-safe) while the library is initialized;
/// after `deinit` the host ignores every call and reports it once.
#[derive(Clone, Debug)]
pub struct Host {
    pub(crate) table: &'static pb_host_t,
    pub(crate) plugin_id: Option<CString>,
}

// SAFETY: the table is host-owned memory valid for the life of the process, and every
// function it points to is [thread-safe] by the header's contract.
unsafe impl Send for Host {}
// SAFETY: as above; `Host` never writes through the table.
unsafe impl Sync for Host {}

impl Host {
    /// The services of `table`, attributed to `plugin_id` (the library itself when `None`).
    ///
    /// # Safety
    /// `table` is the table the host handed to `init`, valid for the life of the process.
    pub(crate) unsafe fn new(table: *const pb_host_t, plugin_id: Option<CString>) -> Option<Host> {
        table.as_ref().map(|table| Host { table, plugin_id })
    }

    /// Logs `message` on behalf of this plugin. A NUL byte in it is written as `\0`.
    pub fn log(&self, level: Level, message: &str) {
        let Some(log) = self.table.log else { return };
        let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
        let id = self.plugin_id.as_ref().map_or(ptr::null(), |id| id.as_ptr());
        // SAFETY: the table and both strings are valid; the host copies the message.
        unsafe { log(self.table, id, level as pb_log_level_t, text.as_ptr()) }
    }

    /// Writes `data` to the container path `path` atomically.
    pub fn write(&self, path: &str, data: &[u8], flags: FileFlags) -> Result<(), FilesError> {
        let (files, path) = self.files_and(path)?;
        let write = files.write.ok_or_else(missing)?;
        // SAFETY: valid table, path and byte range.
        self.check(unsafe { write(self.table, path.as_ptr(), data.as_ptr().cast::<c_void>(), data.len(), flags.0) })
    }

    /// Reads the whole file at `path`.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, FilesError> {
        let (files, path) = self.files_and(path)?;
        let read = files.read.ok_or_else(missing)?;
        // SAFETY: `read` fills `buffer`, which `take_buffer` releases.
        self.filled_buffer(files, |buffer| unsafe { read(self.table, path.as_ptr(), buffer) })
    }

    /// Deletes a file, a link, or an empty folder.
    pub fn remove(&self, path: &str) -> Result<(), FilesError> {
        let (files, path) = self.files_and(path)?;
        let remove = files.remove.ok_or_else(missing)?;
        // SAFETY: valid table and path.
        self.check(unsafe { remove(self.table, path.as_ptr()) })
    }

    /// Renames `path` within its folder; `new_name` is one path component.
    pub fn rename(&self, path: &str, new_name: &str, flags: FileFlags) -> Result<(), FilesError> {
        let (files, path) = self.files_and(path)?;
        let new_name = c_string(new_name)?;
        let rename = files.rename.ok_or_else(missing)?;
        // SAFETY: valid table and strings.
        self.check(unsafe { rename(self.table, path.as_ptr(), new_name.as_ptr(), flags.0) })
    }

    /// Moves `from` to `to`, possibly into another directory.
    pub fn move_item(&self, from: &str, to: &str, flags: FileFlags) -> Result<(), FilesError> {
        let (files, from) = self.files_and(from)?;
        let to = c_string(to)?;
        let move_item = files.r#move.ok_or_else(missing)?;
        // SAFETY: valid table and strings.
        self.check(unsafe { move_item(self.table, from.as_ptr(), to.as_ptr(), flags.0) })
    }

    /// Copies `from` to `to` atomically.
    pub fn copy(&self, from: &str, to: &str, flags: FileFlags) -> Result<(), FilesError> {
        let (files, from) = self.files_and(from)?;
        let to = c_string(to)?;
        let copy = files.copy.ok_or_else(missing)?;
        // SAFETY: valid table and strings.
        self.check(unsafe { copy(self.table, from.as_ptr(), to.as_ptr(), flags.0) })
    }

    /// Changes the extension after the last dot ("" removes it); returns the new container path.
    pub fn change_extension(&self, path: &str, extension: &str, flags: FileFlags) -> Result<String, FilesError> {
        let (files, path) = self.files_and(path)?;
        let extension = c_string(extension)?;
        let change = files.change_extension.ok_or_else(missing)?;
        // SAFETY: `change` fills `buffer`, which `take_buffer` releases.
        let bytes = self.filled_buffer(files, |buffer| unsafe {
            change(self.table, path.as_ptr(), extension.as_ptr(), flags.0, buffer)
        })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Lists a directory as the host's JSON text (an array of `{"name", "kind"}`, sorted by name).
    pub fn list(&self, path: &str) -> Result<String, FilesError> {
        let (files, path) = self.files_and(path)?;
        let list = files.list.ok_or_else(missing)?;
        // SAFETY: `list` fills `buffer`, which `take_buffer` releases.
        let bytes = self.filled_buffer(files, |buffer| unsafe { list(self.table, path.as_ptr(), buffer) })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The attributes of `path` (a final symbolic link is not followed).
    pub fn attributes(&self, path: &str) -> Result<FileAttributes, FilesError> {
        let (files, path) = self.files_and(path)?;
        let attributes = files.attributes.ok_or_else(missing)?;
        let mut out = pb_file_attributes_t {
            struct_size: std::mem::size_of::<pb_file_attributes_t>() as u32,
            kind: PB_FILE_KIND_OTHER, size: 0, permissions: 0, owner_id: 0, modified_ns: 0, created_ns: 0,
        };
        // SAFETY: valid table, path and output struct with its size set.
        self.check(unsafe { attributes(self.table, path.as_ptr(), &mut out) })?;
        Ok(FileAttributes {
            kind: out.kind, size: out.size, permissions: out.permissions, owner_id: out.owner_id,
            modified_ns: out.modified_ns, created_ns: out.created_ns,
        })
    }

    /// Whether `path` names anything.
    pub fn exists(&self, path: &str) -> Result<bool, FilesError> {
        let (files, path) = self.files_and(path)?;
        let exists = files.exists.ok_or_else(missing)?;
        let mut answer = false;
        // SAFETY: valid table, path and output.
        self.check(unsafe { exists(self.table, path.as_ptr(), &mut answer) })?;
        Ok(answer)
    }

    /// The files table, when this host offers one, and `path` as a C string.
    fn files_and(&self, path: &str) -> Result<(&'static pb_files_t, CString), FilesError> {
        let covers_files = self.table.covers(std::mem::offset_of!(pb_host_t, files), std::mem::size_of::<*const pb_files_t>());
        // SAFETY: the field is read only when the host's table covers it; the host owns it for the process's life.
        let files = if covers_files { unsafe { self.table.files.as_ref() } } else { None };
        let files = files.ok_or_else(|| FilesError {
            status: PB_ERR_UNAVAILABLE,
            message: "this host offers no files service (no application container)".to_string(),
        })?;
        Ok((files, c_string(path)?))
    }

    /// `Ok` for `PB_OK`, else the status with the host's `last_error` sentence.
    fn check(&self, status: pb_status_t) -> Result<(), FilesError> {
        if status == PB_OK {
            return Ok(());
        }
        Err(FilesError { status, message: self.last_error() })
    }

    /// Calls `fill` with a fresh buffer, copies what it holds and releases it.
    fn filled_buffer(&self, files: &pb_files_t, fill: impl FnOnce(*mut pb_buffer_t) -> pb_status_t) -> Result<Vec<u8>, FilesError> {
        let mut buffer = pb_buffer_t { data: ptr::null_mut(), size: 0 };
        let status = fill(&mut buffer);
        let bytes = if buffer.data.is_null() {
            Vec::new()
        } else {
            // SAFETY: the host filled `size` bytes at `data`.
            unsafe { std::slice::from_raw_parts(buffer.data, buffer.size) }.to_vec()
        };
        if let Some(free_buffer) = files.free_buffer {
            // SAFETY: the buffer was filled by this host.
            unsafe { free_buffer(self.table, &mut buffer) }
        }
        self.check(status).map(|()| bytes)
    }

    /// The message of this thread's last failed files call.
    fn last_error(&self) -> String {
        // SAFETY: the host covers `files` here (`prepare` succeeded before any call).
        let Some(last_error) = (unsafe { self.table.files.as_ref() }).and_then(|files| files.last_error) else {
            return String::new();
        };
        // SAFETY: NULL and 0 ask for the length only.
        let length = unsafe { last_error(self.table, ptr::null_mut(), 0) };
        let mut buffer = vec![0u8; length.saturating_add(1)];
        // SAFETY: `buffer` holds `buffer.len()` bytes.
        unsafe { last_error(self.table, buffer.as_mut_ptr().cast::<c_char>(), buffer.len()) };
        CStr::from_bytes_until_nul(&buffer).map_or_else(|_| String::new(), |text| text.to_string_lossy().into_owned())
    }
}

/// `text` as a C string; a NUL byte in it is an invalid path.
fn c_string(text: &str) -> Result<CString, FilesError> {
    CString::new(text).map_err(|_| FilesError {
        status: PB_ERR_INVALID_PATH,
        message: format!("the container path {text:?} contains a NUL byte"),
    })
}

/// The error for a NULL function in a table whose size says it is there.
fn missing() -> FilesError {
    FilesError { status: PB_ERR_UNAVAILABLE, message: "the host's files table lacks this function".to_string() }
}
