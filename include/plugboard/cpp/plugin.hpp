/*
 * Plugboard C++ helper (C++17, header-only): write a plugin as a C++ class.
 *
 *   struct Theme : plugboard::Plugin<Theme> {
 *       static constexpr plugboard::PluginInfo info = {"com.example.theme", "Theme", "1.0.0", 0};
 *       bool open_url(std::string_view url, std::string_view options_json);
 *   };
 *   PLUGBOARD_EXPORT_PLUGINS(Theme)
 *
 * A class derives from `plugboard::Plugin<itself>` (CRTP) and declares, public
 * and with the signature shown in `Plugin`, only the events it takes part in.
 * The helper sees at compile time which ones the class declares (the type of
 * `&Class::event` is then a member of the class, not of the base) and builds
 * the C vtables from them: a concern with no declared event is a NULL vtable,
 * an event not declared is a NULL slot, so the host never calls it and each
 * header's meaning of NULL applies. No virtual functions, no registration by
 * hand, and an override with a wrong signature fails to compile.
 *
 * Every callback goes through a `noexcept` trampoline that catches every
 * exception, logs it at PB_LOG_ERROR through the host log, attributed to the
 * plugin ("exception in open_url: <what()>; answered not handled", or
 * "unknown exception in ..." for one not derived from std::exception), and
 * then answers the fail-closed value of the event:
 *
 *   will_finish_launching, did_finish_launching   false: a veto. A launch
 *       plugin that failed cannot vouch for the launch, so it does not let it
 *       pass silently.
 *   open_url, continue_user_activity              false: not handled (the
 *       next plugin is asked).
 *   did_receive_remote_notification               PB_FETCH_FAILED, unless the
 *       plugin answered its Completion before throwing; a later answer through
 *       that Completion is then dropped (the host hears exactly one).
 *   save_state                                    nothing saved: the previous
 *       state is kept (ABI 1.3).
 *   restore_state                                 refused: the plugin starts
 *       without state.
 *   every other event (no answer)                 nothing beyond the log line.
 *
 * The library's objects are made in `register_plugins` (default constructor;
 * a constructor that throws is logged and fails the load) and destroyed in
 * `deinit`, so `ctx` is the object and state needs no global. Build the
 * library with -fvisibility=hidden: nothing of the helper is exported but
 * `plugboard_entry` (libstdc++ template instances may be: plugins/README.md).
 * `plugboard::detail` is the helper's machinery, not for plugin code.
 *
 * Functions called by name (ABI 1.2): a class lists member functions in
 * `static constexpr plugboard::Function functions[]`, each made by
 * `plugboard::function<&Class::member>("name", "doc")`; see function.hpp. A plugin
 * calls another's function with `invoke<R>("plugin-id.function", args...)`; see invoke.hpp.
 */
#pragma once

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "plugboard/cpp/plugin.hpp needs C++17 (for C, include <plugboard.h>)"
#endif

#include "../../plugboard.h"
#include "function.hpp"
#include "invoke.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace plugboard {

namespace detail {
template <class> struct Trampolines;
template <class...> struct Library;
}  // namespace detail

/** Who a plugin is; a class's `static constexpr PluginInfo info`. Strings are static literals. */
struct PluginInfo {
    /** Reverse-DNS id, unique in the process (see pb_plugin_t.id). */
    const char *id;
    /** Human-readable name; "" shows the id. */
    const char *name;
    /** The plugin's version, e.g. "1.2.0". */
    const char *version;
    /** Order of dispatch: higher first; 0 is the usual value. */
    std::int32_t priority;
};

/** What a plugin fetched in answer to a remote notification (the PB_FETCH_* values). */
enum class FetchResult : pb_fetch_result_t {
    new_data = PB_FETCH_NEW_DATA,
    no_data = PB_FETCH_NO_DATA,
    failed = PB_FETCH_FAILED,
};

/**
 * The answer to one remote notification, as a callable: `completion(FetchResult::new_data)`.
 * Copy it freely and call it now or later, from any thread, before `deinit`.
 * The first call, from any copy, goes to the host; later calls are dropped.
 * [thread-safe]
 */
class Completion {
public:
    /** Answers the notification (only the first answer counts). [thread-safe] */
    void operator()(FetchResult result) const noexcept {
        if (!state_->answered.exchange(true)) {
            state_->handle->complete(state_->handle, static_cast<pb_fetch_result_t>(result));
        }
    }
    /** Whether some copy has answered. [thread-safe] */
    bool answered() const noexcept { return state_->answered.load(); }

    /** Another handle on the same answer. */
    Completion(const Completion &other) noexcept : state_(other.state_) { state_->references.fetch_add(1); }
    /** Drops this handle (not the answer). */
    ~Completion() {
        if (state_->references.fetch_sub(1) == 1) delete state_;
    }
    Completion &operator=(const Completion &) = delete;

private:
    template <class> friend struct detail::Trampolines;
    // Counted by hand: std::shared_ptr would export libstdc++'s vague-linkage
    // symbols from the library despite -fvisibility=hidden.
    struct State {
        const pb_fetch_completion_t *handle;
        std::atomic<bool> answered{false};
        std::atomic<long> references{1};
    };
    explicit Completion(State *state) noexcept : state_(state) {}
    State *state_;
};

/** The outcome of a files call: the PB_* code and, on failure, the host's sentence. */
struct Status {
    /** PB_OK or a negative PB_ERR_* code. */
    pb_status_t code;
    /** Why it failed (operation, path, cause); "" on success. */
    std::string message;
    /** True on PB_OK. */
    explicit operator bool() const noexcept { return code == PB_OK; }
    /** True when the host's policy denies this library the files service (PB_ERR_DENIED, since 1.3). */
    bool denied() const noexcept { return code == PB_ERR_DENIED; }
};

/**
 * The application's container (services/files.h), thin wrappers that return a
 * Status. Paths are container paths ("Documents/notes.txt"). A host without a
 * container answers PB_ERR_UNAVAILABLE. May throw std::bad_alloc only.
 * [thread-safe]
 */
class Files {
public:
    /** Writes `data` atomically; flags: PB_FILES_*. */
    Status write(const std::string &path, std::string_view data, std::uint32_t flags = 0) const {
        return call([&](const pb_files_t *f) { return f->write(host_, path.c_str(), data.data(), data.size(), flags); });
    }
    /** Reads a whole file into `contents`. */
    Status read(const std::string &path, std::string &contents) const {
        return into(contents, [&](const pb_files_t *f, pb_buffer_t *b) { return f->read(host_, path.c_str(), b); });
    }
    /** Lists a folder as JSON text into `json` (see pb_files_t.list). */
    Status list(const std::string &path, std::string &json) const {
        return into(json, [&](const pb_files_t *f, pb_buffer_t *b) { return f->list(host_, path.c_str(), b); });
    }
    /** Deletes a file, a link or an empty folder. */
    Status remove(const std::string &path) const {
        return call([&](const pb_files_t *f) { return f->remove(host_, path.c_str()); });
    }
    /** Renames within the same folder; flags: PB_FILES_OVERWRITE. */
    Status rename(const std::string &path, const std::string &new_name, std::uint32_t flags = 0) const {
        return call([&](const pb_files_t *f) { return f->rename(host_, path.c_str(), new_name.c_str(), flags); });
    }
    /** Moves `from` to `to`; flags: PB_FILES_*. */
    Status move(const std::string &from, const std::string &to, std::uint32_t flags = 0) const {
        return call([&](const pb_files_t *f) { return f->move(host_, from.c_str(), to.c_str(), flags); });
    }
    /** Copies `from` to `to`; flags: PB_FILES_*. */
    Status copy(const std::string &from, const std::string &to, std::uint32_t flags = 0) const {
        return call([&](const pb_files_t *f) { return f->copy(host_, from.c_str(), to.c_str(), flags); });
    }
    /** Changes the extension; the new container path goes to `new_path`. Flags: PB_FILES_OVERWRITE. */
    Status change_extension(const std::string &path, const std::string &extension, std::string &new_path,
                            std::uint32_t flags = 0) const {
        return into(new_path, [&](const pb_files_t *f, pb_buffer_t *b) {
            return f->change_extension(host_, path.c_str(), extension.c_str(), flags, b);
        });
    }
    /** Fills `attributes` (its struct_size is set here). */
    Status attributes(const std::string &path, pb_file_attributes_t &attributes) const {
        attributes = pb_file_attributes_t{};
        attributes.struct_size = sizeof(pb_file_attributes_t);
        return call([&](const pb_files_t *f) { return f->attributes(host_, path.c_str(), &attributes); });
    }
    /** Sets `exists` to whether the path names anything. */
    Status exists(const std::string &path, bool &exists) const {
        return call([&](const pb_files_t *f) { return f->exists(host_, path.c_str(), &exists); });
    }

private:
    template <class> friend class Plugin;
    explicit Files(const pb_host_t *host) noexcept : host_(host) {}

    const pb_files_t *service() const noexcept {
        bool has_field = host_ != nullptr && host_->struct_size >= offsetof(pb_host_t, files) + sizeof(host_->files);
        return has_field ? host_->files : nullptr;
    }
    template <class Operation> Status call(Operation operation) const {
        const pb_files_t *files = service();
        if (files == nullptr) return {PB_ERR_UNAVAILABLE, "the host offers no files service here"};
        pb_status_t code = operation(files);
        if (code == PB_OK) return {code, {}};
        std::string message(files->last_error(host_, nullptr, 0), '\0');
        files->last_error(host_, &message[0], message.size() + 1);
        return {code, message};
    }
    template <class Operation> Status into(std::string &text, Operation operation) const {
        pb_buffer_t buffer = {nullptr, 0};
        Status status = call([&](const pb_files_t *f) { return operation(f, &buffer); });
        if (status) {
            const pb_files_t *files = service();
            try {
                text.assign(reinterpret_cast<const char *>(buffer.data), buffer.size);
            } catch (...) {
                files->free_buffer(host_, &buffer);
                throw;
            }
            files->free_buffer(host_, &buffer);
        }
        return status;
    }
    const pb_host_t *host_;
};

/**
 * The base of a plugin class `C : Plugin<C>`. Declare in `C`, public, only the
 * events you take part in, with these signatures (`const` and `noexcept` are
 * allowed); the ones here are never called. Every event is [dispatch-thread];
 * string views are valid only during the call.
 */
template <class Derived> class Plugin {
public:
    /** Launch is about to finish; false vetoes it. */
    bool will_finish_launching(std::string_view options_json) { return (void)options_json, true; }
    /** Launch finished; false vetoes it. */
    bool did_finish_launching(std::string_view options_json) { return (void)options_json, true; }
    /** Opens `url`; true if handled (the rest are not asked). */
    bool open_url(std::string_view url, std::string_view options_json) { return (void)url, (void)options_json, false; }
    /** Continues an activity; true if handled. */
    bool continue_user_activity(std::string_view activity_type, std::string_view user_info_json) {
        return (void)activity_type, (void)user_info_json, false;
    }
    /** The device registered for remote notifications with `token`. */
    void did_register_for_remote_notifications(Bytes token) { (void)token; }
    /** Registration failed with the reason `error`. */
    void did_fail_to_register_for_remote_notifications(std::string_view error) { (void)error; }
    /** A notification arrived; answer `completion` exactly once, now or later. */
    void did_receive_remote_notification(std::string_view user_info_json, Completion completion) {
        (void)user_info_json, (void)completion;
    }
    /** The system is short of memory. */
    void did_receive_memory_warning() {}
    /** Protected files are about to become unreadable. */
    void protected_data_will_become_unavailable() {}
    /** Protected files are readable again. */
    void protected_data_did_become_available() {}
    /** The application became active. */
    void did_become_active() {}
    /** The application is about to become inactive. */
    void will_resign_active() {}
    /** The application moved to the background. */
    void did_enter_background() {}
    /** The application is about to come back to the foreground. */
    void will_enter_foreground() {}
    /** The application is about to terminate. */
    void will_terminate() {}
    /** The state to keep until the next run (any bytes, at most PB_SAVED_STATE_MAX_SIZE), or
     *  std::nullopt to save nothing this time; asked after will_terminate (ABI 1.3). */
    std::optional<std::string> save_state() { return std::nullopt; }
    /** The state a previous run saved, by the plugin's version `saved_version`; false refuses it.
     *  Called before will_finish_launching, only when there is a valid state (ABI 1.3). */
    bool restore_state(Bytes state, std::string_view saved_version) { return (void)state, (void)saved_version, false; }

    /** Logs `message` (UTF-8) on behalf of this plugin, from any time the library is initialized. [thread-safe] */
    static void log(pb_log_level_t level, const char *message) noexcept {
        if (host_ != nullptr) host_->log(host_, Derived::info.id, level, message);
    }
    /** The application's container. [thread-safe] */
    static Files files() noexcept { return Files(host_); }
    /** Calls another plugin's function, "plugin-id.function", with C++ arguments; R is the result's
     *  C++ type. Failures are an Invoked status, never an exception (bad_alloc aside); see invoke.hpp.
     *  [thread-safe] */
    template <class R, class... A> static Invoked<R> invoke(const char *function, const A &...arguments) {
        return detail::invoke<R>(host_, function, arguments...);
    }
    /** Prepares calls of another plugin's function with C++ arguments, checked once (ABI 1.4); see
     *  `Prepared` in invoke.hpp. [thread-safe] */
    template <class R, class... A> static Prepared<R> prepare(const char *function, const A &...arguments) {
        return Prepared<R>::make(host_, function, arguments...);
    }
    /** Posts the notification `name` with `payload_json` (JSON object text; NULL: "{}") on behalf of
     *  this plugin (services/notifications.h); PB_ERR_UNAVAILABLE with a host older than ABI 1.3.
     *  The host delivers it after the current callback returned. [thread-safe] */
    static pb_status_t post(const char *name, const char *payload_json = nullptr) noexcept {
        const pb_notifications_t *bus = notifications();
        return bus != nullptr ? bus->post(host_, Derived::info.id, name, payload_json) : PB_ERR_UNAVAILABLE;
    }
    /** Calls `callback(ctx, name, payload_json, sender_id)` on the dispatch thread for every
     *  notification named `name`, on behalf of this plugin (ordered by its priority), and writes the
     *  token to `*token`; PB_ERR_UNAVAILABLE with a host older than ABI 1.3. The callback must not
     *  throw. [thread-safe] */
    static pb_status_t observe(const char *name, pb_notification_fn callback, void *ctx, uint64_t *token) noexcept {
        const pb_notifications_t *bus = notifications();
        return bus != nullptr ? bus->observe(host_, Derived::info.id, name, callback, ctx, token) : PB_ERR_UNAVAILABLE;
    }
    /** Ends the observation `token` that `observe` returned. [thread-safe] */
    static pb_status_t stop_observing(uint64_t token) noexcept {
        const pb_notifications_t *bus = notifications();
        return bus != nullptr ? bus->stop_observing(host_, token) : PB_ERR_UNAVAILABLE;
    }

private:
    /** The bus, when the host's table covers it (ABI 1.3), else nullptr. */
    static const pb_notifications_t *notifications() noexcept {
        if (host_ == nullptr || host_->struct_size < offsetof(pb_host_t, notifications) + sizeof host_->notifications) return nullptr;
        return host_->notifications;
    }

    template <class...> friend struct detail::Library;
    template <class> friend struct detail::Trampolines;
    static inline const pb_host_t *host_ = nullptr;
};

namespace detail {

/** The C trampolines and vtables of plugin class `P`. */
template <class P> struct Trampolines {
    static P &self(void *ctx) noexcept { return *static_cast<P *>(ctx); }

    /** Logs the exception in flight for `event`, with what was answered, as plugin `id`
     *  (NULL: as the library). Call only inside a catch. */
    static void report(const char *event, const char *answered, const char *id = P::info.id) noexcept {
        char message[1024];
        try {
            throw;
        } catch (const std::exception &e) {
            std::snprintf(message, sizeof message, "exception in %s: %s; answered %s", event, e.what(), answered);
        } catch (...) {
            std::snprintf(message, sizeof message, "unknown exception in %s; answered %s", event, answered);
        }
        const pb_host_t *host = Plugin<P>::host_;
        if (host != nullptr) host->log(host, id, PB_LOG_ERROR, message);
    }

    /** Runs `call`; on an exception logs it and answers `fail_closed` (named `answered` in the log). */
    template <class Answer, class Call>
    static Answer guard(const char *event, Answer fail_closed, const char *answered, Call call) noexcept {
        try {
            return call();
        } catch (...) {
            report(event, answered);
        }
        return fail_closed;
    }
    /** Runs `call`; on an exception logs it. */
    template <class Call> static void guard(const char *event, Call call) noexcept {
        try {
            call();
        } catch (...) {
            report(event, "nothing");
        }
    }
    static std::string_view text(const char *bytes, std::size_t size) noexcept { return {bytes, size}; }

    static bool will_finish_launching(void *ctx, const char *json, std::size_t size) noexcept {
        return guard("will_finish_launching", false, "false (a veto)",
                     [&] { return self(ctx).will_finish_launching(text(json, size)); });
    }
    static bool did_finish_launching(void *ctx, const char *json, std::size_t size) noexcept {
        return guard("did_finish_launching", false, "false (a veto)",
                     [&] { return self(ctx).did_finish_launching(text(json, size)); });
    }
    static bool open_url(void *ctx, const char *url, std::size_t url_size, const char *json, std::size_t size) noexcept {
        return guard("open_url", false, "not handled",
                     [&] { return self(ctx).open_url(text(url, url_size), text(json, size)); });
    }
    static bool continue_user_activity(void *ctx, const char *type, std::size_t type_size, const char *json,
                                       std::size_t size) noexcept {
        return guard("continue_user_activity", false, "not handled",
                     [&] { return self(ctx).continue_user_activity(text(type, type_size), text(json, size)); });
    }
    static void did_register(void *ctx, const std::uint8_t *token, std::size_t size) noexcept {
        guard("did_register_for_remote_notifications",
              [&] { self(ctx).did_register_for_remote_notifications(Bytes{token, size}); });
    }
    static void did_fail_to_register(void *ctx, const char *error, std::size_t size) noexcept {
        guard("did_fail_to_register_for_remote_notifications",
              [&] { self(ctx).did_fail_to_register_for_remote_notifications(text(error, size)); });
    }
    static void did_receive_remote_notification(void *ctx, const char *json, std::size_t size,
                                                const pb_fetch_completion_t *handle) noexcept {
        Completion::State *state = new (std::nothrow) Completion::State{handle};
        if (state == nullptr) {
            Plugin<P>::log(PB_LOG_ERROR, "out of memory in did_receive_remote_notification; answered failed");
            handle->complete(handle, PB_FETCH_FAILED);
            return;
        }
        Completion completion(state);
        try {
            self(ctx).did_receive_remote_notification(text(json, size), completion);
        } catch (...) {
            bool answered = state->answered.exchange(true);
            report("did_receive_remote_notification", answered ? "nothing (already answered)" : "failed");
            if (!answered) handle->complete(handle, PB_FETCH_FAILED);
        }
    }
    static void did_receive_memory_warning(void *ctx) noexcept {
        guard("did_receive_memory_warning", [&] { self(ctx).did_receive_memory_warning(); });
    }
    static void will_become_unavailable(void *ctx) noexcept {
        guard("protected_data_will_become_unavailable", [&] { self(ctx).protected_data_will_become_unavailable(); });
    }
    static void did_become_available(void *ctx) noexcept {
        guard("protected_data_did_become_available", [&] { self(ctx).protected_data_did_become_available(); });
    }
    static void did_become_active(void *ctx) noexcept {
        guard("did_become_active", [&] { self(ctx).did_become_active(); });
    }
    static void will_resign_active(void *ctx) noexcept {
        guard("will_resign_active", [&] { self(ctx).will_resign_active(); });
    }
    static void did_enter_background(void *ctx) noexcept {
        guard("did_enter_background", [&] { self(ctx).did_enter_background(); });
    }
    static void will_enter_foreground(void *ctx) noexcept {
        guard("will_enter_foreground", [&] { self(ctx).will_enter_foreground(); });
    }
    static void will_terminate(void *ctx) noexcept {
        guard("will_terminate", [&] { self(ctx).will_terminate(); });
    }
    /** Copies the state into a malloc'ed buffer that release_state frees. */
    static pb_status_t save_state(void *ctx, pb_bytes_t *out) noexcept {
        return guard("save_state", pb_status_t{PB_ERR_IO}, "nothing saved", [&]() -> pb_status_t {
            std::optional<std::string> state = self(ctx).save_state();
            if (!state) return PB_ERR_UNAVAILABLE;
            void *copy = std::malloc(state->empty() ? 1 : state->size());
            if (copy == nullptr) throw std::bad_alloc();
            std::memcpy(copy, state->data(), state->size());
            *out = pb_bytes_t{static_cast<const std::uint8_t *>(copy), state->size()};
            return PB_OK;
        });
    }
    static void release_state(void *ctx, const std::uint8_t *data, std::size_t size) noexcept {
        (void)ctx, (void)size;
        std::free(const_cast<std::uint8_t *>(data));
    }
    static pb_status_t restore_state(void *ctx, const char *saved_version, const std::uint8_t *data,
                                     std::size_t size) noexcept {
        return guard("restore_state", pb_status_t{PB_ERR_INVALID_ARGUMENT}, "refused", [&]() -> pb_status_t {
            return self(ctx).restore_state(Bytes{data, size}, saved_version) ? PB_OK : PB_ERR_INVALID_ARGUMENT;
        });
    }

// Whether P declares `event` itself: then `&P::event` is a member of P, not of Plugin<P>.
#define PLUGBOARD_CPP_DECLARES(event) \
    (!std::is_same<decltype(&P::event), decltype(&Plugin<P>::event)>::value)
// The trampoline of `event` if P declares it, else NULL.
#define PLUGBOARD_CPP_SLOT(event, trampoline) (PLUGBOARD_CPP_DECLARES(event) ? &Trampolines::trampoline : nullptr)

    static constexpr pb_launch_t launch = {
        sizeof(pb_launch_t),
        PLUGBOARD_CPP_SLOT(will_finish_launching, will_finish_launching),
        PLUGBOARD_CPP_SLOT(did_finish_launching, did_finish_launching),
    };
    static constexpr pb_open_url_t open_url_table = {sizeof(pb_open_url_t), PLUGBOARD_CPP_SLOT(open_url, open_url)};
    static constexpr pb_user_activity_t user_activity = {
        sizeof(pb_user_activity_t), PLUGBOARD_CPP_SLOT(continue_user_activity, continue_user_activity)};
    static constexpr pb_remote_notifications_t remote_notifications = {
        sizeof(pb_remote_notifications_t),
        PLUGBOARD_CPP_SLOT(did_register_for_remote_notifications, did_register),
        PLUGBOARD_CPP_SLOT(did_fail_to_register_for_remote_notifications, did_fail_to_register),
        PLUGBOARD_CPP_SLOT(did_receive_remote_notification, did_receive_remote_notification),
    };
    static constexpr pb_memory_t memory = {
        sizeof(pb_memory_t), PLUGBOARD_CPP_SLOT(did_receive_memory_warning, did_receive_memory_warning)};
    static constexpr pb_protected_data_t protected_data = {
        sizeof(pb_protected_data_t),
        PLUGBOARD_CPP_SLOT(protected_data_will_become_unavailable, will_become_unavailable),
        PLUGBOARD_CPP_SLOT(protected_data_did_become_available, did_become_available),
    };
    static constexpr pb_app_state_t app_state = {
        sizeof(pb_app_state_t),
        PLUGBOARD_CPP_SLOT(did_become_active, did_become_active),
        PLUGBOARD_CPP_SLOT(will_resign_active, will_resign_active),
        PLUGBOARD_CPP_SLOT(did_enter_background, did_enter_background),
        PLUGBOARD_CPP_SLOT(will_enter_foreground, will_enter_foreground),
    };
    static constexpr pb_termination_t termination = {sizeof(pb_termination_t),
                                                     PLUGBOARD_CPP_SLOT(will_terminate, will_terminate)};
    static constexpr pb_saved_state_t saved_state = {
        sizeof(pb_saved_state_t),
        PLUGBOARD_CPP_SLOT(save_state, save_state),
        PLUGBOARD_CPP_DECLARES(save_state) ? &Trampolines::release_state : nullptr,
        PLUGBOARD_CPP_SLOT(restore_state, restore_state),
    };
#undef PLUGBOARD_CPP_SLOT
#undef PLUGBOARD_CPP_DECLARES

    /** `table` if one of its slots is set, else NULL (the concern is not taken part in). */
    template <class Table, class... Slots> static const Table *table_if_any(const Table &table, Slots... slots) noexcept {
        return ((slots != nullptr) || ...) ? &table : nullptr;
    }

    /** The descriptor of `object`. */
    static pb_plugin_t descriptor(P *object) noexcept {
        pb_plugin_t plugin = {};
        plugin.struct_size = sizeof(pb_plugin_t);
        plugin.priority = P::info.priority;
        plugin.id = P::info.id;
        plugin.name = P::info.name;
        plugin.version = P::info.version;
        plugin.ctx = object;
        plugin.launch = table_if_any(launch, launch.will_finish_launching, launch.did_finish_launching);
        plugin.open_url = table_if_any(open_url_table, open_url_table.open_url);
        plugin.user_activity = table_if_any(user_activity, user_activity.continue_user_activity);
        plugin.remote_notifications =
            table_if_any(remote_notifications, remote_notifications.did_register,
                         remote_notifications.did_fail_to_register, remote_notifications.did_receive_remote_notification);
        plugin.memory = table_if_any(memory, memory.did_receive_memory_warning);
        plugin.protected_data =
            table_if_any(protected_data, protected_data.will_become_unavailable, protected_data.did_become_available);
        plugin.app_state = table_if_any(app_state, app_state.did_become_active, app_state.will_resign_active,
                                        app_state.did_enter_background, app_state.will_enter_foreground);
        plugin.termination = table_if_any(termination, termination.will_terminate);
        plugin.saved_state = table_if_any(saved_state, saved_state.save_state, saved_state.restore_state);
        return plugin;
    }
};

/** Whether every type of `Ps` differs from the others. */
template <class... Ps> struct AllDistinct : std::true_type {};
template <class P, class... Rest>
struct AllDistinct<P, Rest...>
    : std::bool_constant<!(std::is_same<P, Rest>::value || ...) && AllDistinct<Rest...>::value> {};

/**
 * The library of plugin classes `Ps...`: its entry record and lifecycle. Use it
 * through PLUGBOARD_EXPORT_PLUGINS. `init` keeps the host table; `register_plugins`
 * makes one object of each class and adds it; `deinit` destroys them. [dispatch-thread]
 */
template <class... Ps> struct Library {
    static_assert(sizeof...(Ps) > 0, "PLUGBOARD_EXPORT_PLUGINS needs at least one plugin class");
    static_assert(AllDistinct<Ps...>::value, "PLUGBOARD_EXPORT_PLUGINS lists a plugin class twice");
    static_assert((std::is_base_of<Plugin<Ps>, Ps>::value && ...), "a plugin class C must derive from plugboard::Plugin<C>");

    /** The entry record `plugboard_entry` returns. */
    static const pb_entry_t *entry() noexcept { return &record; }

private:
    /** The one object of class `P` while the library is initialized, else null. */
    template <class P> static inline P *object = nullptr;

    static bool init(const pb_host_t *host) noexcept {
        ((Plugin<Ps>::host_ = host), ...);
        return true;
    }
    static void deinit() noexcept {
        ((delete object<Ps>, object<Ps> = nullptr), ...);
    }
    static bool register_plugins(const pb_registrar_t *registrar) noexcept {
        return (add<Ps>(registrar) && ...);
    }
    /** Makes the object of `P` and adds it; false if its constructor threw (logged) or the host refused it. */
    template <class P> static bool add(const pb_registrar_t *registrar) noexcept {
        try {
            object<P> = new P();
        } catch (...) {
            // As the library: the plugin is not registered yet, so its id is not known to the host.
            char event[300];
            std::snprintf(event, sizeof event, "the constructor of %s", P::info.id);
            Trampolines<P>::report(event, "false from register_plugins", nullptr);
            return false;
        }
        pb_plugin_t plugin = Trampolines<P>::descriptor(object<P>);
        FunctionDeclarations<P> functions(object<P>);
        functions.fill(plugin);
        return registrar->add_plugin(registrar, &plugin) == PB_OK;  // the host names a refusal in the load report
    }

    static constexpr pb_entry_t record = {sizeof(pb_entry_t), PB_ABI_VERSION_MAJOR, PB_ABI_VERSION_MINOR,
                                          &init, &deinit, &register_plugins};
};

}  // namespace detail
}  // namespace plugboard

/**
 * Defines `plugboard_entry` for the plugin classes listed, e.g.
 * `PLUGBOARD_EXPORT_PLUGINS(Theme, DeepLinks)`. Each class has a
 * `static constexpr plugboard::PluginInfo info`. Use once per library, at
 * namespace scope. [dispatch-thread]
 */
#define PLUGBOARD_EXPORT_PLUGINS(...)                                   \
    extern "C" PB_EXPORT const pb_entry_t *plugboard_entry(void) {      \
        return ::plugboard::detail::Library<__VA_ARGS__>::entry();             \
    }
