/*
 * Plugboard C++ helper, functions (ABI 1.2, functions.h): a plugin class lists
 * member functions that the host and other plugins call by name.
 *
 *   struct Units : plugboard::Plugin<Units> {
 *       static constexpr plugboard::PluginInfo info = {"com.example.units", "Units", "1.0.0", 0};
 *       double convert(std::string_view from, std::string_view to, double value);
 *       static constexpr plugboard::Function functions[] = {
 *           plugboard::function<&Units::convert>("convert", "Converts a value between units"),
 *       };
 *   };
 *
 * The signature string, here "double (string, string, double)", is derived
 * from the member function's C++ type at compile time, so the declaration and
 * the code cannot disagree; a type with no counterpart in the type language
 * fails a static_assert. The types:
 *
 *   C++ argument                          type      C parameters
 *   bool, float, double                   same      same
 *   std::int8_t ... std::uint64_t         int8 ...  same (any integer type but bool and the char types)
 *   std::string_view, const char *        string    const char *
 *   plugboard::Bytes                      bytes     const uint8_t *, size_t
 *   void *                                pointer   void *
 *
 *   C++ result                 type     ownership (pb_function_t.release)
 *   void, bool, integers,      same     -
 *   float, double, void *
 *   std::string                string   copied into a malloc'd buffer per call; released by the helper
 *   std::vector<std::uint8_t>  bytes    copied into a malloc'd buffer per call; released by the helper
 *   const char *               string   the plugin's (release NULL): static, or valid until the
 *                                       function's next call on that thread
 *   pb_bytes_t                 bytes    the plugin's, as for const char *
 *
 * The host calls a C trampoline per listed function (`noexcept`, the C
 * signature above), which calls the member function on the class's object
 * (made in register_plugins). No exception reaches the host: the trampoline
 * catches every one, logs it at PB_LOG_ERROR as the plugin ("exception in
 * function convert: <what()>; answered NaN", or "unknown exception in ..."),
 * and returns the fail value of the result type:
 *
 *   bool false;  integers 0;  float, double NaN;  void * NULL;
 *   string "" (a static empty string, never passed to free);
 *   bytes {NULL, 0};  void: nothing.
 *
 * The caller cannot tell a fail value from a real answer: a function whose
 * answers include 0, NaN or "" should report failure in its result (or log).
 * Rules: list a member function after its declaration, each name once (the
 * host refuses a repeated name); a function may run on any thread (functions.h),
 * so guard state it shares with callbacks.
 */
#pragma once

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "plugboard/cpp/function.hpp needs C++17"
#endif

#include "../../plugboard.h"

#include <array>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace plugboard {

/** The opaque bytes of a push token or a `bytes` argument (not text). A view: valid only during the call. */
struct Bytes {
    /** The first byte; may be null when `size` is 0. */
    const std::uint8_t *data;
    /** The number of bytes. */
    std::size_t size;
    /** For range-for. */
    const std::uint8_t *begin() const noexcept { return data; }
    /** For range-for. */
    const std::uint8_t *end() const noexcept { return data + size; }
};

/**
 * One function of a plugin class, as its `static constexpr plugboard::Function
 * functions[]` lists it; made by `plugboard::function<&Class::member>(name, doc)`.
 * Static strings only.
 */
struct Function {
    /** The name, `[a-z_][a-z0-9_]*`, unique in the plugin. */
    const char *name;
    /** What it does, or NULL. */
    const char *doc;
    /** The signature derived from the member function's type, e.g. "double (string, string, double)". */
    const char *signature;
    /** Binds the trampoline to the plugin's object and fills the C declaration. Helper machinery. */
    pb_function_t (*declare)(const Function &function, void *object) noexcept;
};

namespace detail {

template <class...> struct TypeList {};
template <class...> struct Concat;
template <> struct Concat<> { using type = TypeList<>; };
template <class... A> struct Concat<TypeList<A...>> { using type = TypeList<A...>; };
template <class... A, class... B, class... Rest> struct Concat<TypeList<A...>, TypeList<B...>, Rest...> {
    using type = typename Concat<TypeList<A..., B...>, Rest...>::type;
};

template <class> struct AlwaysFalse : std::false_type {};

/** An integer type the type language names (not bool, not a character type, at most 64 bits). */
template <class T>
constexpr bool is_plain_integer =
    std::is_integral<T>::value && sizeof(T) <= 8 && !std::is_same<T, bool>::value && !std::is_same<T, char>::value &&
    !std::is_same<T, wchar_t>::value && !std::is_same<T, char16_t>::value && !std::is_same<T, char32_t>::value;

template <class T> constexpr const char *integer_name() {
    constexpr bool s = std::is_signed<T>::value;
    switch (sizeof(T)) {
        case 1: return s ? "int8" : "uint8";
        case 2: return s ? "int16" : "uint16";
        case 4: return s ? "int32" : "uint32";
        default: return s ? "int64" : "uint64";
    }
}

/** A scalar that crosses as itself: bool, integers, float, double, void *. */
template <class T>
constexpr bool is_scalar_value = std::is_same<T, bool>::value || is_plain_integer<T> || std::is_same<T, float>::value ||
                                 std::is_same<T, double>::value || std::is_same<T, void *>::value;

template <class T> constexpr const char *scalar_name() {
    if constexpr (std::is_same<T, bool>::value) return "bool";
    else if constexpr (std::is_same<T, float>::value) return "float";
    else if constexpr (std::is_same<T, double>::value) return "double";
    else if constexpr (std::is_same<T, void *>::value) return "pointer";
    else return integer_name<T>();
}

/** How a C++ argument type crosses: its type name, its C parameters, and how it is rebuilt from them. */
template <class T, class = void> struct Argument {
    static_assert(AlwaysFalse<T>::value,
                  "plugboard::function: unsupported argument type (use bool, a fixed-width integer, float, double, "
                  "std::string_view or const char *, plugboard::Bytes, void *)");
    static constexpr const char *name = "?";
    using CParameters = TypeList<>;
};
template <class T> struct Argument<T, std::enable_if_t<is_scalar_value<T>>> {
    static constexpr const char *name = scalar_name<T>();
    using CParameters = TypeList<T>;
    template <std::size_t I, class Tuple> static T make(const Tuple &c) noexcept { return std::get<I>(c); }
};
template <> struct Argument<const char *> {
    static constexpr const char *name = "string";
    using CParameters = TypeList<const char *>;
    template <std::size_t I, class Tuple> static const char *make(const Tuple &c) noexcept { return std::get<I>(c); }
};
template <> struct Argument<std::string_view> {
    static constexpr const char *name = "string";
    using CParameters = TypeList<const char *>;
    template <std::size_t I, class Tuple> static std::string_view make(const Tuple &c) noexcept { return std::get<I>(c); }
};
template <> struct Argument<Bytes> {
    static constexpr const char *name = "bytes";
    using CParameters = TypeList<const std::uint8_t *, std::size_t>;
    template <std::size_t I, class Tuple> static Bytes make(const Tuple &c) noexcept {
        return Bytes{std::get<I>(c), std::get<I + 1>(c)};
    }
};

/** The static empty string a failed string function returns; never freed. */
inline constexpr char empty_string[] = "";

/** Frees a result the helper allocated per call (never the static empty string). [thread-safe] */
inline void release_result(void *result) noexcept {
    if (result != static_cast<const void *>(empty_string)) std::free(result);
}

/** A malloc'd copy of `size` bytes at `data` (and a NUL after them); throws std::bad_alloc. */
inline char *copy_out(const void *data, std::size_t size) {
    char *copy = static_cast<char *>(std::malloc(size + 1));
    if (copy == nullptr) throw std::bad_alloc();
    if (size > 0) std::memcpy(copy, data, size);
    copy[size] = '\0';
    return copy;
}

/** How a C++ result type crosses: its type name, C type, conversion, fail value and release. */
template <class T, class = void> struct Result {
    static_assert(AlwaysFalse<T>::value,
                  "plugboard::function: unsupported result type (use void, bool, a fixed-width integer, float, double, "
                  "std::string or const char *, std::vector<std::uint8_t> or pb_bytes_t, void *)");
    static constexpr const char *name = "?";
    using CResult = void;
};
template <class T> struct Result<T, std::enable_if_t<is_scalar_value<T>>> {
    static constexpr const char *name = scalar_name<T>();
    using CResult = T;
    static constexpr void (*release)(void *) = nullptr;
    static CResult from(T value) { return value; }
    static CResult fail() noexcept {
        if constexpr (std::is_floating_point<T>::value) return std::numeric_limits<T>::quiet_NaN();
        else return T{};
    }
    static constexpr const char *fail_text = std::is_floating_point<T>::value ? "NaN"
                                             : std::is_same<T, bool>::value   ? "false"
                                             : std::is_same<T, void *>::value ? "NULL"
                                                                              : "0";
};
template <> struct Result<const char *> {
    static constexpr const char *name = "string";
    using CResult = const char *;
    static constexpr void (*release)(void *) = nullptr;
    static CResult from(const char *value) { return value; }
    static CResult fail() noexcept { return empty_string; }
    static constexpr const char *fail_text = "\"\"";
};
template <> struct Result<std::string> {
    static constexpr const char *name = "string";
    using CResult = const char *;
    static constexpr void (*release)(void *) = &release_result;
    static CResult from(const std::string &value) { return copy_out(value.data(), value.size()); }
    static CResult fail() noexcept { return empty_string; }
    static constexpr const char *fail_text = "\"\"";
};
template <> struct Result<pb_bytes_t> {
    static constexpr const char *name = "bytes";
    using CResult = pb_bytes_t;
    static constexpr void (*release)(void *) = nullptr;
    static CResult from(pb_bytes_t value) { return value; }
    static CResult fail() noexcept { return pb_bytes_t{nullptr, 0}; }
    static constexpr const char *fail_text = "empty bytes";
};
template <> struct Result<std::vector<std::uint8_t>> {
    static constexpr const char *name = "bytes";
    using CResult = pb_bytes_t;
    static constexpr void (*release)(void *) = &release_result;
    static CResult from(const std::vector<std::uint8_t> &value) {
        return pb_bytes_t{reinterpret_cast<const std::uint8_t *>(copy_out(value.data(), value.size())), value.size()};
    }
    static CResult fail() noexcept { return pb_bytes_t{nullptr, 0}; }
    static constexpr const char *fail_text = "empty bytes";
};
template <> struct Result<void> {
    static constexpr const char *name = "void";
    using CResult = void;
    static constexpr void (*release)(void *) = nullptr;
    static constexpr const char *fail_text = "nothing";
};

constexpr std::size_t text_length(const char *text) {
    std::size_t length = 0;
    while (text[length] != '\0') ++length;
    return length;
}

/** The parts of a member function type: the class, the result, the arguments. */
template <class> struct Member;
template <class P, class R, class... A> struct Member<R (P::*)(A...)> {
    using Class = P;
    using Return = R;
    using Arguments = TypeList<A...>;
};
template <class P, class R, class... A> struct Member<R (P::*)(A...) const> : Member<R (P::*)(A...)> {};
template <class P, class R, class... A> struct Member<R (P::*)(A...) noexcept> : Member<R (P::*)(A...)> {};
template <class P, class R, class... A> struct Member<R (P::*)(A...) const noexcept> : Member<R (P::*)(A...)> {};

template <class T> using Bare = std::remove_cv_t<std::remove_reference_t<T>>;

template <class> struct Width;
template <class... T> struct Width<TypeList<T...>> : std::integral_constant<std::size_t, sizeof...(T)> {};

template <class> struct CParametersOf;
template <class... A> struct CParametersOf<TypeList<A...>> {
    using type = typename Concat<typename Argument<Bare<A>>::CParameters...>::type;
};

template <class> struct Trampolines;  // plugin.hpp: the exception report

template <auto F, class Arguments, class CParameters> struct Exported;

/**
 * The C side of member function `F` of plugin class `P`: its signature, its
 * `noexcept` trampoline and its declaration. `declare` binds the object and
 * the name in register_plugins, before the host can call the trampoline.
 */
template <auto F, class... A, class... C> struct Exported<F, TypeList<A...>, TypeList<C...>> {
    using P = typename Member<decltype(F)>::Class;
    using R = Bare<typename Member<decltype(F)>::Return>;

    static constexpr const char *names[] = {Result<R>::name, Argument<Bare<A>>::name...};
    static constexpr std::size_t signature_length = [] {
        std::size_t total = text_length(names[0]) + 3;  // "R (" and ")"
        for (std::size_t i = 1; i < sizeof...(A) + 1; ++i) total += text_length(names[i]) + (i > 1 ? 2 : 0);
        return total;
    }();
    /** "R (A, B)", NUL-terminated. */
    static constexpr std::array<char, signature_length + 1> signature = [] {
        std::array<char, signature_length + 1> chars{};
        std::size_t at = 0;
        auto append = [&](const char *part) {
            for (std::size_t i = 0; part[i] != '\0'; ++i) chars[at++] = part[i];
        };
        append(names[0]);
        append(" (");
        for (std::size_t i = 1; i < sizeof...(A) + 1; ++i) {
            if (i > 1) append(", ");
            append(names[i]);
        }
        append(")");
        return chars;
    }();

    static inline P *object = nullptr;
    static inline const char *name = "";

    /** Where argument `index`'s C parameters start. */
    static constexpr std::size_t start(std::size_t index) {
        constexpr std::size_t widths[] = {0, Width<typename Argument<Bare<A>>::CParameters>::value...};
        std::size_t at = 0;
        for (std::size_t i = 1; i <= index; ++i) at += widths[i];
        return at;
    }

    template <std::size_t... I>
    static typename Result<R>::CResult invoke(const std::tuple<C...> &parameters, std::index_sequence<I...>) noexcept {
        try {
            if constexpr (std::is_void<R>::value) {
                (object->*F)(Argument<Bare<A>>::template make<start(I)>(parameters)...);
                return;
            } else {
                return Result<R>::from((object->*F)(Argument<Bare<A>>::template make<start(I)>(parameters)...));
            }
        } catch (...) {
            char event[96];
            std::snprintf(event, sizeof event, "function %s", name);
            Trampolines<P>::report(event, Result<R>::fail_text);
        }
        if constexpr (!std::is_void<R>::value) return Result<R>::fail();
    }

    /** The C function the host calls. [thread-safe as the member function is] */
    static typename Result<R>::CResult call(C... parameters) noexcept {
        return invoke(std::tuple<C...>(parameters...), std::index_sequence_for<A...>{});
    }

    static pb_function_t declare(const Function &function, void *plugin) noexcept {
        object = static_cast<P *>(plugin);
        name = function.name;
        pb_function_t declaration = {};
        declaration.struct_size = sizeof(pb_function_t);
        declaration.name = function.name;
        declaration.signature = function.signature;
        declaration.doc = function.doc;
        declaration.function = reinterpret_cast<void (*)(void)>(&call);
        declaration.release = Result<R>::release;
        return declaration;
    }
};

template <auto F>
using ExportedOf = Exported<F, typename Member<decltype(F)>::Arguments,
                            typename CParametersOf<typename Member<decltype(F)>::Arguments>::type>;

/** Whether plugin class `P` lists functions (a static `functions` array). */
template <class P, class = void> struct ListsFunctions : std::false_type {};
template <class P> struct ListsFunctions<P, std::void_t<decltype(P::functions)>> : std::true_type {};

/**
 * The C declarations of `P::functions` for one add_plugin call (the host reads
 * them only there, so they live on the stack); binds each trampoline to `object`.
 */
template <class P, bool = ListsFunctions<P>::value> struct FunctionDeclarations {
    FunctionDeclarations(P *) noexcept {}
    void fill(pb_plugin_t &) noexcept {}
};
template <class P> struct FunctionDeclarations<P, true> {
    static constexpr std::size_t count = std::extent<decltype(P::functions)>::value;
    static_assert(std::is_same<std::remove_cv_t<std::remove_extent_t<decltype(P::functions)>>, Function>::value,
                  "a plugin class's `functions` must be `static constexpr plugboard::Function functions[]`");
    pb_function_t declarations[count];

    explicit FunctionDeclarations(P *object) noexcept {
        for (std::size_t i = 0; i < count; ++i) declarations[i] = P::functions[i].declare(P::functions[i], object);
    }
    void fill(pb_plugin_t &plugin) noexcept {
        plugin.functions = declarations;
        plugin.function_count = static_cast<std::uint32_t>(count);
    }
};

}  // namespace detail

/**
 * The declaration of member function `F` of a plugin class under `name`
 * (`[a-z_][a-z0-9_]*`), with `doc` (or NULL), for the class's `functions` list.
 * Its signature is derived from `F`'s type; see the table at the top.
 */
template <auto F> constexpr Function function(const char *name, const char *doc = nullptr) noexcept {
    static_assert(std::is_member_function_pointer<decltype(F)>::value,
                  "plugboard::function<&Class::member>: F must be a member function of the plugin class");
    using E = detail::ExportedOf<F>;
    return Function{name, doc, E::signature.data(), &E::declare};
}

}  // namespace plugboard
