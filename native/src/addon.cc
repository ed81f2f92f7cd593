// sluice_native: what Node cannot see and the engine needs (issue #16). Every function has a JavaScript fallback in
// app/node/sys/ and the engine runs without this addon.
#include "common.h"

#include <cerrno>
#include <cstring>
#include <string>

#ifdef _WIN32
#include <windows.h>
#endif

namespace sluice {

static const char* ErrnoName(int err) {
  switch (err) {
    case ENOSPC: return "ENOSPC";
#ifdef EDQUOT
    case EDQUOT: return "EDQUOT";
#endif
    case EFBIG: return "EFBIG";
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case EIO: return "EIO";
    case ENOTSOCK: return "ENOTSOCK";
    case EOPNOTSUPP: return "EOPNOTSUPP";
#if defined(ENOTSUP) && ENOTSUP != EOPNOTSUPP
    case ENOTSUP: return "ENOTSUP";
#endif
    case ENOSYS: return "ENOSYS";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EINTR: return "EINTR";
    case ENXIO: return "ENXIO";
    default: return "EUNKNOWN";
  }
}

Napi::Value ThrowErrno(Napi::Env env, int err, const char* syscall) {
  std::string msg = std::string(ErrnoName(err)) + ": " + std::strerror(err) + ", " + syscall;
  Napi::Error e = Napi::Error::New(env, msg);
  e.Set("code", Napi::String::New(env, ErrnoName(err)));
  e.Set("errno", Napi::Number::New(env, -err));
  e.Set("syscall", Napi::String::New(env, syscall));
  e.ThrowAsJavaScriptException();
  return env.Undefined();
}

bool IntArg(const Napi::CallbackInfo& info, size_t i, int64_t* out) {
  if (info.Length() <= i || !info[i].IsNumber()) {
    Napi::TypeError::New(info.Env(), "sluice_native: argument " + std::to_string(i) + " must be a number")
        .ThrowAsJavaScriptException();
    return false;
  }
  *out = info[i].As<Napi::Number>().Int64Value();
  return true;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("tcpInfo", Napi::Function::New(env, TcpInfo, "tcpInfo"));
  exports.Set("preallocate", Napi::Function::New(env, Preallocate, "preallocate"));
  exports.Set("dataRanges", Napi::Function::New(env, DataRanges, "dataRanges"));
  exports.Set("setSparse", Napi::Function::New(env, SetSparse, "setSparse"));
  exports.Set("isHidden", Napi::Function::New(env, IsHidden, "isHidden"));
#if defined(__linux__)
  exports.Set("platform", Napi::String::New(env, "linux"));
#elif defined(__APPLE__)
  exports.Set("platform", Napi::String::New(env, "darwin"));
#elif defined(_WIN32)
  exports.Set("platform", Napi::String::New(env, "win32"));
#else
  exports.Set("platform", Napi::String::New(env, "other"));
#endif
  return exports;
}

}  // namespace sluice

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return sluice::Init(env, exports); }

NODE_API_MODULE(sluice_native, InitAddon)
