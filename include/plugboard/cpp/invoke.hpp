/*
 * Plugboard C++ helper, invocation (ABI 1.2, pb_host_t.invoke): a plugin class
 * calls another plugin's declared function by name, with C++ values.
 *
 *   auto metres = invoke<double>("com.example.units.convert", "ft", "m", 3.0);
 *   if (metres) log(PB_LOG_INFO, std::to_string(*metres.value).c_str());
 *   else log(PB_LOG_WARNING, metres.message.c_str());
 *
 * `invoke<R>` is a static member of `plugboard::Plugin` (the host table it
 * uses is the library's). Each argument becomes the pb_value_t kind of its
 * C++ type; the host checks it against the declared signature (width and
 * range included) as for every call:
 *
 *   C++ argument                                          kind
 *   bool                                                  PB_VALUE_BOOL
 *   signed integers (not char types)                      PB_VALUE_INT
 *   unsigned integers (not char types)                    PB_VALUE_UINT
 *   float / double                                        PB_VALUE_FLOAT / PB_VALUE_DOUBLE
 *   const char *, std::string, std::string_view           PB_VALUE_STRING (a view is copied to add the NUL)
 *   plugboard::Bytes, std::vector<std::uint8_t>           PB_VALUE_BYTES
 *   void *                                                PB_VALUE_POINTER
 *
 * `R` is the result's C++ type: void, bool, an integer type (an INT or UINT
 * result that does not fit R is an error), float, double (a FLOAT result is
 * widened), std::string, std::vector<std::uint8_t> or void *. A string or
 * bytes result is copied and the host's copy freed with `release_value`.
 *
 * The answer is an `Invoked<R>`: `code` (PB_OK or a PB_ERR_* status), `message`
 * (the host's sentence naming the function and the cause; "" on PB_OK) and,
 * on PB_OK, `value` (a std::monostate for void). No exception crosses the C
 * boundary: every failure is a status; `invoke` throws only std::bad_alloc,
 * which a callback's trampoline catches like any exception. [thread-safe]
 *
 * A call made many times is cheaper prepared (ABI 1.4): `prepare<R>(function, args...)`
 * gives a `Prepared<R>`, checked once; `set(i, value)` changes an argument, `()` calls.
 */
#pragma once

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "plugboard/cpp/invoke.hpp needs C++17"
#endif

#include "../../plugboard.h"
#include "function.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace plugboard {

/** The answer of `Plugin::invoke<R>`: a status, the host's sentence, and the value on success. */
template <class R> struct Invoked {
    /** R, or std::monostate for a void function. */
    using Value = std::conditional_t<std::is_void<R>::value, std::monostate, R>;
    /** PB_OK or a negative PB_ERR_* code. */
    pb_status_t code;
    /** Why it failed, naming the function; "" on PB_OK. */
    std::string message;
    /** The result; set exactly when `code` is PB_OK. */
    std::optional<Value> value;
    /** True on PB_OK. */
    explicit operator bool() const noexcept { return code == PB_OK; }
    /** True when the host's policy denies this library invoke (PB_ERR_DENIED, since 1.3). */
    bool denied() const noexcept { return code == PB_ERR_DENIED; }
};

namespace detail {

/** One argument as a pb_value_t, owning the NUL-terminated copy of a std::string_view. */
struct InvokeArgument {
    pb_value_t value{};
    std::optional<std::string> text;

    template <class A> explicit InvokeArgument(const A &argument) {
        using T = std::decay_t<A>;
        if constexpr (std::is_same<T, bool>::value) {
            value.kind = PB_VALUE_BOOL, value.boolean = argument;
        } else if constexpr (is_plain_integer<T> && std::is_signed<T>::value) {
            value.kind = PB_VALUE_INT, value.integer = argument;
        } else if constexpr (is_plain_integer<T>) {
            value.kind = PB_VALUE_UINT, value.unsigned_integer = argument;
        } else if constexpr (std::is_same<T, float>::value) {
            value.kind = PB_VALUE_FLOAT, value.float_value = argument;
        } else if constexpr (std::is_same<T, double>::value) {
            value.kind = PB_VALUE_DOUBLE, value.double_value = argument;
        } else if constexpr (std::is_same<T, const char *>::value || std::is_same<T, char *>::value) {
            value.kind = PB_VALUE_STRING, value.string = argument;
        } else if constexpr (std::is_same<T, std::string>::value) {
            value.kind = PB_VALUE_STRING, value.string = argument.c_str();
        } else if constexpr (std::is_same<T, std::string_view>::value) {
            value.kind = PB_VALUE_STRING, text.emplace(argument);
        } else if constexpr (std::is_same<T, Bytes>::value) {
            value.kind = PB_VALUE_BYTES, value.bytes = {argument.data, argument.size};
        } else if constexpr (std::is_same<T, std::vector<std::uint8_t>>::value) {
            value.kind = PB_VALUE_BYTES, value.bytes = {argument.data(), argument.size()};
        } else if constexpr (std::is_same<T, void *>::value) {
            value.kind = PB_VALUE_POINTER, value.pointer = argument;
        } else {
            static_assert(AlwaysFalse<T>::value,
                          "plugboard::invoke: unsupported argument type (use bool, an integer, float, double, "
                          "const char *, std::string, std::string_view, plugboard::Bytes, "
                          "std::vector<std::uint8_t>, void *)");
        }
    }

    /** The value to pass; valid while this argument lives where it is. */
    pb_value_t passed() const noexcept {
        pb_value_t copy = value;
        if (text) copy.string = text->c_str();
        return copy;
    }
};

inline const char *kind_name(pb_value_kind_t kind) noexcept {
    switch (kind) {
        case PB_VALUE_VOID: return "void";
        case PB_VALUE_BOOL: return "bool";
        case PB_VALUE_INT: return "a signed integer";
        case PB_VALUE_UINT: return "an unsigned integer";
        case PB_VALUE_FLOAT: return "float";
        case PB_VALUE_DOUBLE: return "double";
        case PB_VALUE_STRING: return "a string";
        case PB_VALUE_BYTES: return "bytes";
        case PB_VALUE_POINTER: return "a pointer";
        default: return "an unknown kind";
    }
}

/** `result` as R, or nullopt when its kind or range does not fit R. */
template <class R> std::optional<typename Invoked<R>::Value> result_as(const pb_value_t &result) {
    using Value = typename Invoked<R>::Value;
    const pb_value_kind_t kind = result.kind;
    if constexpr (std::is_void<R>::value) {
        if (kind == PB_VALUE_VOID) return Value{};
    } else if constexpr (std::is_same<R, bool>::value) {
        if (kind == PB_VALUE_BOOL) return result.boolean;
    } else if constexpr (is_plain_integer<R>) {
        if (kind == PB_VALUE_INT && result.integer >= 0) {
            if (static_cast<std::uint64_t>(result.integer) <= static_cast<std::uint64_t>(std::numeric_limits<R>::max()))
                return static_cast<R>(result.integer);
        } else if (kind == PB_VALUE_INT) {
            if (std::is_signed<R>::value && result.integer >= static_cast<std::int64_t>(std::numeric_limits<R>::min()))
                return static_cast<R>(result.integer);
        } else if (kind == PB_VALUE_UINT) {
            if (result.unsigned_integer <= static_cast<std::uint64_t>(std::numeric_limits<R>::max()))
                return static_cast<R>(result.unsigned_integer);
        }
    } else if constexpr (std::is_same<R, float>::value) {
        if (kind == PB_VALUE_FLOAT) return result.float_value;
    } else if constexpr (std::is_same<R, double>::value) {
        if (kind == PB_VALUE_DOUBLE) return result.double_value;
        if (kind == PB_VALUE_FLOAT) return static_cast<double>(result.float_value);
    } else if constexpr (std::is_same<R, std::string>::value) {
        if (kind == PB_VALUE_STRING) return std::string(result.string);
    } else if constexpr (std::is_same<R, std::vector<std::uint8_t>>::value) {
        if (kind == PB_VALUE_BYTES) return std::vector<std::uint8_t>(result.bytes.data, result.bytes.data + result.bytes.size);
    } else if constexpr (std::is_same<R, void *>::value) {
        if (kind == PB_VALUE_POINTER) return result.pointer;
    } else {
        static_assert(AlwaysFalse<R>::value,
                      "plugboard::invoke: unsupported result type (use void, bool, an integer, float, double, "
                      "std::string, std::vector<std::uint8_t>, void *)");
    }
    return std::nullopt;
}

/** The answer to an invocation of `function` that returned `code`, `result` (released here) and `error`. */
template <class R>
Invoked<R> answer(const pb_host_t *host, const char *function, pb_status_t code, pb_value_t &result, const char *error) {
    if (code != PB_OK) return {code, error, std::nullopt};
    struct Release {
        const pb_host_t *host;
        pb_value_t *value;
        ~Release() { host->release_value(host, value); }
    } release{host, &result};
    auto value = result_as<R>(result);
    if (!value) {
        return {PB_ERR_INVALID_ARGUMENT,
                std::string(function) + ": the result is " + kind_name(result.kind) + ", not the type asked for",
                std::nullopt};
    }
    return {PB_OK, {}, std::move(value)};
}

/** Whether `host`'s table reaches the slot ending at `end` (an older host's is shorter). */
inline bool covers(const pb_host_t *host, std::size_t end) noexcept { return host != nullptr && host->struct_size >= end; }

/** Calls `function` through `host`'s invoke with `arguments`; see invoke.hpp. */
template <class R, class... A>
Invoked<R> invoke(const pb_host_t *host, const char *function, const A &...arguments) {
    if (!covers(host, offsetof(pb_host_t, release_value) + sizeof(host->release_value)))
        return {PB_ERR_UNAVAILABLE, "this host has no invoke (ABI 1.2 is needed)", std::nullopt};
    const std::array<InvokeArgument, sizeof...(A)> held{InvokeArgument(arguments)...};
    std::array<pb_value_t, sizeof...(A)> values{};
    for (std::size_t i = 0; i < held.size(); ++i) values[i] = held[i].passed();
    pb_value_t result{};
    char error[1024] = "";
    pb_status_t code = host->invoke(host, function, values.empty() ? nullptr : values.data(), values.size(), &result,
                                    error, sizeof error);
    return answer<R>(host, function, code, result, error);
}

}  // namespace detail

/**
 * An invocation prepared once and made many times (ABI 1.4, pb_host_t.prepare_invoke): the host
 * looks the function up and checks the arguments when it is made and when `set` changes one, so
 * a call only runs the function and converts its result.
 *
 *   auto convert = plugboard::Prepared<double>::make(host, "com.example.units.convert", "ft", "m", 1.0);
 *   for (double feet : lengths) { convert.set(2, feet); auto metres = convert(); }
 *
 * `Plugin::prepare<R>(function, args...)` makes one with the library's host table. When making it
 * failed, `made()` says why and every call answers the same. Move-only; the handle is released
 * when the object goes. Calls may run on several threads at once; `set` while one runs is
 * refused (PB_ERR_WRONG_STATE). [thread-safe]
 */
template <class R> class Prepared {
public:
    /** Prepares `function` with `arguments` (C++ types as for `invoke`) through `host`. */
    template <class... A> static Prepared make(const pb_host_t *host, const char *function, const A &...arguments) {
        Prepared prepared(host, function);
        if (!detail::covers(host, offsetof(pb_host_t, release_prepared) + sizeof(host->release_prepared))) {
            prepared.made_ = {PB_ERR_UNAVAILABLE, "this host has no prepared invocations (ABI 1.4 is needed)", std::monostate{}};
            return prepared;
        }
        const std::array<detail::InvokeArgument, sizeof...(A)> held{detail::InvokeArgument(arguments)...};
        std::array<pb_value_t, sizeof...(A)> values{};
        for (std::size_t i = 0; i < held.size(); ++i) values[i] = held[i].passed();
        char error[1024] = "";
        pb_status_t code = host->prepare_invoke(host, function, values.empty() ? nullptr : values.data(), values.size(),
                                                &prepared.handle_, error, sizeof error);
        prepared.made_ = {code, error, std::monostate{}};
        if (code != PB_OK) prepared.made_.value.reset();
        return prepared;
    }

    Prepared(Prepared &&other) noexcept
        : host_(other.host_), function_(std::move(other.function_)), handle_(other.handle_), made_(std::move(other.made_)) {
        other.handle_ = nullptr;
    }
    Prepared &operator=(Prepared &&other) noexcept {
        if (this != &other) {
            release();
            host_ = other.host_, function_ = std::move(other.function_), handle_ = other.handle_, made_ = std::move(other.made_);
            other.handle_ = nullptr;
        }
        return *this;
    }
    Prepared(const Prepared &) = delete;
    Prepared &operator=(const Prepared &) = delete;
    ~Prepared() { release(); }

    /** How making it went: PB_OK, or the host's status and sentence. */
    const Invoked<void> &made() const noexcept { return made_; }
    /** True when it was made. */
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    /** Sets argument `index` (0-based) to `value` (a C++ type as for `invoke`), checked by the host;
     *  on failure the argument keeps its value. */
    template <class A> Invoked<void> set(std::size_t index, const A &value) {
        if (handle_ == nullptr) return {made_.code, made_.message, std::nullopt};
        const detail::InvokeArgument held(value);
        const pb_value_t passed = held.passed();
        char error[1024] = "";
        pb_status_t code = host_->set_prepared_argument(host_, handle_, index, &passed, error, sizeof error);
        return {code, error, code == PB_OK ? std::optional<std::monostate>(std::monostate{}) : std::nullopt};
    }

    /** Calls the function with the arguments as set; the answer as `invoke` gives it. */
    Invoked<R> operator()() const {
        if (handle_ == nullptr) return {made_.code, made_.message, std::nullopt};
        pb_value_t result{};
        char error[1024] = "";
        pb_status_t code = host_->call_prepared(host_, handle_, &result, error, sizeof error);
        return detail::answer<R>(host_, function_.c_str(), code, result, error);
    }

private:
    Prepared(const pb_host_t *host, const char *function) : host_(host), function_(function != nullptr ? function : "") {}

    void release() noexcept {
        if (handle_ != nullptr) host_->release_prepared(host_, handle_);
        handle_ = nullptr;
    }

    const pb_host_t *host_;
    std::string function_;
    pb_prepared_invoke_t *handle_ = nullptr;
    Invoked<void> made_{PB_OK, {}, std::monostate{}};
};
}  // namespace plugboard
