//! The answer to a remote notification, as a handle that can travel to another thread.

use crate::abi::*;

/// What a plugin fetched in answer to a remote notification (`PB_FETCH_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchResult {
    /// New data was fetched.
    NewData = PB_FETCH_NEW_DATA as isize,
    /// Nothing new.
    NoData = PB_FETCH_NO_DATA as isize,
    /// The fetch failed.
    Failed = PB_FETCH_FAILED as isize,
}

/// The host's completion of one notification. `complete` consumes it, so it is answered at
/// most once; a handle dropped unanswered (also by a panic) answers `Failed`.
#[derive(Debug)]
pub struct FetchCompletion {
    completion: Option<&'static pb_fetch_completion_t>,
}

// SAFETY: the host keeps the completion valid for the life of the process, and its
// `complete` is [thread-safe].
unsafe impl Send for FetchCompletion {}

impl FetchCompletion {
    /// The handle for the host's `completion`.
    ///
    /// # Safety
    /// `completion` is the pointer the host passed to `did_receive_remote_notification`.
    pub(crate) unsafe fn new(completion: *const pb_fetch_completion_t) -> FetchCompletion {
        FetchCompletion { completion: completion.as_ref() }
    }

    /// Answers the notification with `result`.
    pub fn complete(mut self, result: FetchResult) {
        self.answer(result);
    }

    fn answer(&mut self, result: FetchResult) {
        let Some(completion) = self.completion.take() else { return };
        if let Some(complete) = completion.complete {
            // SAFETY: host-owned completion, valid for the life of the process.
            unsafe { complete(completion, result as pb_fetch_result_t) }
        }
    }
}

impl Drop for FetchCompletion {
    fn drop(&mut self) {
        self.answer(FetchResult::Failed);
    }
}
