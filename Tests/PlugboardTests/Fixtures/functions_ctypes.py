"""Calls a plugin's declared functions through Python's ctypes, for comparison with Plugboard's engine.

Usage: python3 functions_ctypes.py LIBRARY PLUGIN_ID < cases

The library is opened with ctypes and walked as the host would: `plugboard_entry`, then
`register_plugins` with a registrar whose `add_plugin` keeps the declarations (name,
signature, function, release) of PLUGIN_ID. Each input line is `function arg…`; each
argument is encoded for its declared type (integers in decimal, bool as true/false,
float and double as the hex of their little-endian bytes, string and bytes as the hex
of their bytes, pointer in decimal). Each output line is the result, encoded the same
way ("void" for none). A returned string or buffer is released as functions.h says.
"""
import ctypes
import struct
import sys

VTABLES = ["launch", "open_url", "user_activity", "remote_notifications", "memory", "protected_data",
           "app_state", "termination"]


class Function(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p), ("signature", ctypes.c_char_p),
                ("doc", ctypes.c_char_p), ("function", ctypes.c_void_p), ("release", ctypes.c_void_p)]


class Plugin(ctypes.Structure):
    _fields_ = ([("struct_size", ctypes.c_uint32), ("priority", ctypes.c_int32), ("id", ctypes.c_char_p),
                 ("name", ctypes.c_char_p), ("version", ctypes.c_char_p), ("ctx", ctypes.c_void_p)]
                + [(name, ctypes.c_void_p) for name in VTABLES]
                + [("functions", ctypes.POINTER(Function)), ("function_count", ctypes.c_uint32)])


AddPlugin = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(Plugin))


class Registrar(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("host", ctypes.c_void_p), ("host_data", ctypes.c_void_p),
                ("add_plugin", AddPlugin)]


Register = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.POINTER(Registrar))


class Entry(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("abi_major", ctypes.c_uint32), ("abi_minor", ctypes.c_uint32),
                ("init", ctypes.c_void_p), ("deinit", ctypes.c_void_p), ("register_plugins", Register)]


class Bytes(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]


INTEGERS = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
            "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64}
FLOATS = {"float": (ctypes.c_float, "<f"), "double": (ctypes.c_double, "<d")}


def parse(signature):
    result, _, rest = signature.replace(" ", "").replace("\t", "").partition("(")
    arguments = [name for name in rest.rstrip(")").split(",") if name]
    return result, arguments


def c_types(name):
    if name in INTEGERS:
        return [INTEGERS[name]]
    if name in FLOATS:
        return [FLOATS[name][0]]
    return {"bool": [ctypes.c_bool], "string": [ctypes.c_char_p], "pointer": [ctypes.c_void_p],
            "bytes": [ctypes.c_void_p, ctypes.c_size_t]}[name]


def result_type(name):
    if name == "void":
        return None
    if name == "bytes":
        return Bytes
    if name == "string":
        return ctypes.c_void_p
    return c_types(name)[0]


def decode(name, text, keep):
    if name in INTEGERS or name == "pointer":
        return [int(text)]
    if name == "bool":
        return [text == "true"]
    if name in FLOATS:
        return [struct.unpack(FLOATS[name][1], bytes.fromhex(text))[0]]
    data = bytes.fromhex(text)
    if name == "string":
        return [data]
    buffer = ctypes.create_string_buffer(data, len(data) + 1)
    keep.append(buffer)
    return [ctypes.cast(buffer, ctypes.c_void_p), len(data)]


def encode(name, value, release):
    if name == "void":
        return "void"
    if name == "bool":
        return "true" if value else "false"
    if name in FLOATS:
        return struct.pack(FLOATS[name][1], value).hex()
    if name == "pointer":
        return str(value or 0)
    if name == "string":
        text = ctypes.string_at(value).hex()
        if release:
            release(value)
        return text
    if name == "bytes":
        data = ctypes.string_at(value.data, value.size).hex() if value.data else ""
        if release and value.data:
            release(value.data)
        return data
    return str(value)


def main():
    library = ctypes.CDLL(sys.argv[1])
    wanted = sys.argv[2].encode()
    entry_function = library.plugboard_entry
    entry_function.restype = ctypes.POINTER(Entry)
    declarations = {}

    def add_plugin(_registrar, plugin):
        if plugin.contents.id == wanted:
            for index in range(plugin.contents.function_count):
                function = plugin.contents.functions[index]
                declarations[function.name.decode()] = (function.signature.decode(), function.function, function.release)
        return 0

    callback = AddPlugin(add_plugin)
    registrar = Registrar(ctypes.sizeof(Registrar), None, None, callback)
    if not entry_function().contents.register_plugins(ctypes.byref(registrar)):
        sys.exit("register_plugins returned false")

    for line in sys.stdin.read().splitlines():
        name, *texts = line.split(" ")
        signature, address, release_address = declarations[name]
        result, arguments = parse(signature)
        prototype = ctypes.CFUNCTYPE(result_type(result), *[t for argument in arguments for t in c_types(argument)])
        keep = []
        values = [v for argument, text in zip(arguments, texts) for v in decode(argument, text, keep)]
        release = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(release_address) if release_address else None
        print(encode(result, prototype(address)(*values), release))


main()
