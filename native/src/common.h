// Shared by the sluice_native sources: the three functions and the error helper.
#pragma once
#include <napi.h>

namespace sluice {

// tcpInfo(fd) -> object | undefined (see tcp_info.cc)
Napi::Value TcpInfo(const Napi::CallbackInfo& info);
// preallocate(fd, bytes) -> boolean (see preallocate.cc)
Napi::Value Preallocate(const Napi::CallbackInfo& info);
// dataRanges(fd, size) -> Array<[start, end]> | null (see data_ranges.cc)
Napi::Value DataRanges(const Napi::CallbackInfo& info);
// setSparse(fd) -> boolean (see sparse_file.cc; Windows only, false elsewhere)
Napi::Value SetSparse(const Napi::CallbackInfo& info);
// isHidden(path) -> boolean (see hidden.cc: Windows hidden/system attributes, macOS UF_HIDDEN; false on Linux)
Napi::Value IsHidden(const Napi::CallbackInfo& info);

// Throws a JavaScript Error carrying `code` (an errno name such as "ENOSPC"), `errno` and `syscall`, the shape
// node's own fs errors have, so app/node/errors.ts maps it like any other local error. Returns undefined.
Napi::Value ThrowErrno(Napi::Env env, int err, const char* syscall);

// The integer argument `i` as an int64 (a file descriptor or a byte count); throws TypeError when it is not a number.
bool IntArg(const Napi::CallbackInfo& info, size_t i, int64_t* out);

}  // namespace sluice
