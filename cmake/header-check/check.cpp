/*
 * Header check (C++): the public headers must compile cleanly as C++11 and
 * C++17 with -Wall -Wextra -pedantic -Werror, and declare everything with C
 * linkage (CMakeLists.txt builds this file once per standard, as an OBJECT
 * library: compiled, never linked or run).
 */
#include <plugboard.h>
#include <plugboard.h> // a second time: every header is include-guarded

#include <cstddef>
#include <type_traits>

// The entry symbol has C linkage: this redeclaration would not compile if the
// header had declared it inside a C++ namespace or with C++ linkage.
extern "C" const pb_entry_t *plugboard_entry(void);

namespace {

// The entry symbol's declaration matches the documented function type.
static_assert(std::is_same<decltype(&plugboard_entry), pb_entry_fn>::value,
              "plugboard_entry has the type pb_entry_fn");

// The structs are plain C data: a C++ plugin can value-initialize and copy them.
static_assert(std::is_trivial<pb_plugin_t>::value, "pb_plugin_t is trivial");
static_assert(std::is_standard_layout<pb_plugin_t>::value, "pb_plugin_t is standard layout");
static_assert(std::is_standard_layout<pb_entry_t>::value, "pb_entry_t is standard layout");
static_assert(std::is_standard_layout<pb_host_t>::value, "pb_host_t is standard layout");
static_assert(offsetof(pb_plugin_t, struct_size) == 0, "struct_size comes first");

// A C++ plugin fills the vtables with aggregate initialization (C++11 has no
// designated initializers) from functions that must not throw.
bool check_launch(void *, const char *, std::size_t) noexcept { return true; }

const pb_launch_t check_launch_vtable = {sizeof(pb_launch_t), check_launch, nullptr};

}  // namespace

const pb_launch_t *pb_check_launch_vtable() { return &check_launch_vtable; }
