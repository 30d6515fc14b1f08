/*
 * A C++ plugin declaring functions with <plugboard/cpp/function.hpp>: every
 * kind of argument and result the helper maps, and functions that throw
 * (std::runtime_error, or an int) so the fail values can be checked.
 * Used by Tests/PlugboardTests/CPlusPlus/CppFunctionTests.swift.
 */
#include <plugboard/cpp/plugin.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Functions : plugboard::Plugin<Functions> {
    static constexpr plugboard::PluginInfo info = {"com.example.cppfunctions", "C++ functions", "1.0.0", 0};

    int calls = 0;

    double scale(double value, std::int32_t factor) { return ++calls, value * factor; }
    std::int8_t negate8(std::int8_t value) const noexcept { return static_cast<std::int8_t>(-value); }
    std::uint64_t add64(std::uint64_t a, std::uint64_t b) const { return a + b; }
    bool is_empty(std::string_view text) const { return text.empty(); }
    float half(float value) const { return value / 2; }
    std::string greet(const char *name) const { return std::string("hello, ") + name; }
    const char *kind() const { return "static"; }
    std::vector<std::uint8_t> reversed(plugboard::Bytes data, std::uint8_t add) const {
        std::vector<std::uint8_t> out(data.begin(), data.end());
        for (std::uint8_t &byte : out) byte = static_cast<std::uint8_t>(byte + add);
        return std::vector<std::uint8_t>(out.rbegin(), out.rend());
    }
    pb_bytes_t magic() const { return pb_bytes_t{reinterpret_cast<const std::uint8_t *>("PB"), 2}; }
    void *same(void *pointer) const { return pointer; }
    std::int32_t count() const { return calls; }
    void reset() { calls = 0; }

    double fail_double(std::string_view why) const { throw std::runtime_error(std::string(why)); }
    std::string fail_string() const { throw 42; }
    std::int64_t fail_int() const { throw std::runtime_error("no int"); }
    std::vector<std::uint8_t> fail_bytes() const { throw std::runtime_error("no bytes"); }
    void fail_void() { throw std::runtime_error("no void"); }

    static constexpr plugboard::Function functions[] = {
        plugboard::function<&Functions::scale>("scale", "value times factor"),
        plugboard::function<&Functions::negate8>("negate8"),
        plugboard::function<&Functions::add64>("add64"),
        plugboard::function<&Functions::is_empty>("is_empty"),
        plugboard::function<&Functions::half>("half"),
        plugboard::function<&Functions::greet>("greet", "a greeting, malloc'd per call"),
        plugboard::function<&Functions::kind>("kind"),
        plugboard::function<&Functions::reversed>("reversed"),
        plugboard::function<&Functions::magic>("magic"),
        plugboard::function<&Functions::same>("same"),
        plugboard::function<&Functions::count>("count"),
        plugboard::function<&Functions::reset>("reset"),
        plugboard::function<&Functions::fail_double>("fail_double"),
        plugboard::function<&Functions::fail_string>("fail_string"),
        plugboard::function<&Functions::fail_int>("fail_int"),
        plugboard::function<&Functions::fail_bytes>("fail_bytes"),
        plugboard::function<&Functions::fail_void>("fail_void"),
    };
};

#ifdef UNSUPPORTED_TYPE
struct Wrong : plugboard::Plugin<Wrong> {
    static constexpr plugboard::PluginInfo info = {"com.example.wrong", "", "1.0.0", 0};
    long double precise(long double value) const { return value; }
    static constexpr plugboard::Function functions[] = {plugboard::function<&Wrong::precise>("precise")};
};
#endif

}  // namespace

PLUGBOARD_EXPORT_PLUGINS(Functions)
