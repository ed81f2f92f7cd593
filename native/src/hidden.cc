// isHidden(path): whether the platform's file manager hides an entry that has no leading dot (issue #30 item 11).
//   Windows: GetFileAttributesW: FILE_ATTRIBUTE_HIDDEN or FILE_ATTRIBUTE_SYSTEM (Explorer's default view hides both).
//            Written to the SDK documentation; not compiled here.
//   macOS:   lstat(2) st_flags & UF_HIDDEN (`chflags hidden`, what the Finder hides). Not compiled here.
//   Linux:   no such flag: false (dot-files are told by their name, in JavaScript).
// `path` is UTF-8. A path that cannot be read answers false (the entry is shown, as without the addon).
#include "common.h"

#include <string>

#if defined(_WIN32)
#include <windows.h>
#elif defined(__APPLE__)
#include <sys/stat.h>
#endif

namespace sluice {

Napi::Value IsHidden(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "sluice_native: argument 0 must be a string").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string path = info[0].As<Napi::String>().Utf8Value();
#if defined(_WIN32)
  int n = MultiByteToWideChar(CP_UTF8, 0, path.c_str(), -1, nullptr, 0);
  if (n <= 0) return Napi::Boolean::New(env, false);
  std::wstring wide(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, path.c_str(), -1, &wide[0], n);
  DWORD attrs = GetFileAttributesW(wide.c_str());
  if (attrs == INVALID_FILE_ATTRIBUTES) return Napi::Boolean::New(env, false);
  return Napi::Boolean::New(env, (attrs & (FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM)) != 0);
#elif defined(__APPLE__)
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return Napi::Boolean::New(env, false);
  return Napi::Boolean::New(env, (st.st_flags & UF_HIDDEN) != 0);
#else
  return Napi::Boolean::New(env, false);
#endif
}

}  // namespace sluice
