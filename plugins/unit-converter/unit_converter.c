/*
 * unit-converter: an example plugin that offers functions to be called by name
 * (ABI 1.2, plugboard/functions.h) and takes part in no lifecycle event.
 *
 *   com.example.units.convert   double (string, string, double)
 *       convert("ft", "m", 3) == 0.9144; NaN for an unknown unit or two units
 *       that measure different things ("m" to "kg").
 *   com.example.units.describe  string (string, string, double)
 *       "3 ft = 0.9144 m", or why it cannot convert: a string allocated per call,
 *       which the host frees with the declared `release` (free) after copying it.
 *   com.example.units.units     string ()
 *       the units it knows: a static string, so `release` is NULL.
 *
 * What it shows:
 *   - a pb_function_t per function: name, signature, doc, the C function cast
 *     to `void (*)(void)`, and `release` for results allocated per call;
 *   - plain C functions with the C types the signature stands for: the host
 *     checks the arguments against the signature before calling;
 *   - functions that keep no state, so any thread may call them.
 *
 * Build: cc -std=c11 -shared -fPIC -fvisibility=hidden -I include unit_converter.c -o unit-converter.so
 */
#include <plugboard.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A unit: what it measures, and how to reach the base unit (value * scale + offset). */
typedef struct unit {
    const char *name;
    const char *measures;
    double scale;
    double offset;
} unit_t;

static const unit_t units_known[] = {
    {"m", "length", 1, 0},          {"km", "length", 1000, 0},     {"cm", "length", 0.01, 0},
    {"mm", "length", 0.001, 0},     {"in", "length", 0.0254, 0},   {"ft", "length", 0.3048, 0},
    {"yd", "length", 0.9144, 0},    {"mi", "length", 1609.344, 0}, {"g", "mass", 0.001, 0},
    {"kg", "mass", 1, 0},           {"lb", "mass", 0.45359237, 0}, {"oz", "mass", 0.028349523125, 0},
    {"K", "temperature", 1, 0},     {"C", "temperature", 1, 273.15},
    {"F", "temperature", 5.0 / 9.0, 459.67 * 5.0 / 9.0},
};

static const unit_t *find_unit(const char *name) {
    for (size_t i = 0; i < sizeof units_known / sizeof units_known[0]; i++) {
        if (strcmp(units_known[i].name, name) == 0) return &units_known[i];
    }
    return NULL;
}

/* double convert(string from, string to, double value) */
static double convert(const char *from, const char *to, double value) {
    const unit_t *source = find_unit(from);
    const unit_t *target = find_unit(to);
    if (source == NULL || target == NULL || strcmp(source->measures, target->measures) != 0) return NAN;
    return (value * source->scale + source->offset - target->offset) / target->scale;
}

/* string describe(string from, string to, double value): malloc'd, freed by the host through `release`. */
static const char *describe(const char *from, const char *to, double value) {
    char line[256];
    const unit_t *source = find_unit(from);
    const unit_t *target = find_unit(to);
    if (source == NULL || target == NULL) {
        snprintf(line, sizeof line, "cannot convert %.40s to %.40s: unknown unit %.40s", from, to, source ? to : from);
    } else if (strcmp(source->measures, target->measures) != 0) {
        snprintf(line, sizeof line, "cannot convert %s to %s: %s is a %s, %s a %s", from, to, from, source->measures,
                 to, target->measures);
    } else {
        snprintf(line, sizeof line, "%g %s = %g %s", value, from, convert(from, to, value), to);
    }
    size_t size = strlen(line) + 1;
    char *result = malloc(size);
    if (result != NULL) memcpy(result, line, size);
    return result; /* NULL only when out of memory: the host reports it as an invalid result */
}

/* string units(): static, so `release` is NULL. */
static const char *units(void) {
    return "m km cm mm in ft yd mi g kg lb oz K C F";
}

/* The host copies each name, signature and doc in add_plugin; a static array is the usual choice. */
static const pb_function_t functions[] = {
    {
        .struct_size = sizeof(pb_function_t),
        .name = "convert",
        .signature = "double (string, string, double)",
        .doc = "Converts value from one unit to another (convert(\"ft\", \"m\", 3) = 0.9144); NaN when it cannot.",
        .function = (void (*)(void))convert,
    },
    {
        .struct_size = sizeof(pb_function_t),
        .name = "describe",
        .signature = "string (string, string, double)",
        .doc = "The conversion as a sentence (\"3 ft = 0.9144 m\"), or why it cannot be made.",
        .function = (void (*)(void))describe,
        .release = free,
    },
    {
        .struct_size = sizeof(pb_function_t),
        .name = "units",
        .signature = "string ()",
        .doc = "The units convert knows, separated by spaces.",
        .function = (void (*)(void))units,
    },
};

static bool register_plugins(const pb_registrar_t *registrar) {
    pb_plugin_t plugin = {
        .struct_size = sizeof(pb_plugin_t),
        .id = "com.example.units",
        .name = "Unit converter",
        .version = "1.0.0",
        .functions = functions,
        .function_count = sizeof functions / sizeof functions[0],
    };
    return registrar->add_plugin(registrar, &plugin) == PB_OK;
}

static const pb_entry_t entry = {
    .struct_size = sizeof(pb_entry_t),
    .abi_major = PB_ABI_VERSION_MAJOR,
    .abi_minor = PB_ABI_VERSION_MINOR,
    .register_plugins = register_plugins,
};

PB_EXPORT const pb_entry_t *plugboard_entry(void) {
    return &entry;
}
