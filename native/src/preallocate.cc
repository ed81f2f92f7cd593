// preallocate(fd, bytes): reserves `bytes` of disk for a download's temporary file before data arrives, without
// changing its size (a partial file still reads as long as what was written; resume reads the size).
//   Linux:   fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, bytes)                               (fallocate(2))
//   macOS:   fcntl(fd, F_PREALLOCATE, {F_ALLOCATECONTIG then F_ALLOCATEALL, F_PEOFPOSMODE}) (fcntl(2)); not compiled here
//   Windows: SetFileInformationByHandle(FileAllocationInfo) on uv_get_osfhandle(fd)          not compiled here
// Returns true when the space is reserved, false when the file system cannot preallocate (EOPNOTSUPP, ENOSYS: the
// caller goes on without); throws an Error with code ENOSPC / EDQUOT / EFBIG when the space is not there.
#include "common.h"

#include <cerrno>

#if defined(__linux__)
#include <fcntl.h>
#include <linux/falloc.h>
#elif defined(__APPLE__)
#include <fcntl.h>
#elif defined(_WIN32)
#include <uv.h>  // uv_get_osfhandle: the fd is Node's (libuv's CRT); the addon's own CRT (_get_osfhandle) cannot see it
#include <windows.h>
#endif

namespace sluice {

Napi::Value Preallocate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int64_t fd, bytes;
  if (!IntArg(info, 0, &fd) || !IntArg(info, 1, &bytes)) return env.Undefined();
  if (fd < 0) return ThrowErrno(env, EBADF, "preallocate");
  if (bytes <= 0) return Napi::Boolean::New(env, true);
#if defined(__linux__)
  int r;
  do {
    r = fallocate(static_cast<int>(fd), FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes));
  } while (r != 0 && errno == EINTR);
  if (r == 0) return Napi::Boolean::New(env, true);
  if (errno == EOPNOTSUPP || errno == ENOSYS) return Napi::Boolean::New(env, false);
  return ThrowErrno(env, errno, "fallocate");
#elif defined(__APPLE__)
  fstore_t st = {F_ALLOCATECONTIG | F_ALLOCATEALL, F_PEOFPOSMODE, 0, static_cast<off_t>(bytes), 0};
  if (fcntl(static_cast<int>(fd), F_PREALLOCATE, &st) == 0) return Napi::Boolean::New(env, true);
  st.fst_flags = F_ALLOCATEALL;
  if (fcntl(static_cast<int>(fd), F_PREALLOCATE, &st) == 0) return Napi::Boolean::New(env, true);
  if (errno == ENOTSUP || errno == EINVAL) return Napi::Boolean::New(env, false);
  return ThrowErrno(env, errno, "fcntl(F_PREALLOCATE)");
#elif defined(_WIN32)
  HANDLE h = uv_get_osfhandle(static_cast<uv_file>(fd));
  if (h == INVALID_HANDLE_VALUE) return ThrowErrno(env, EBADF, "uv_get_osfhandle");
  FILE_ALLOCATION_INFO fai;
  fai.AllocationSize.QuadPart = bytes;
  if (SetFileInformationByHandle(h, FileAllocationInfo, &fai, sizeof(fai))) return Napi::Boolean::New(env, true);
  DWORD err = GetLastError();
  if (err == ERROR_DISK_FULL || err == ERROR_HANDLE_DISK_FULL) return ThrowErrno(env, ENOSPC, "SetFileInformationByHandle");
  return Napi::Boolean::New(env, false);
#else
  return Napi::Boolean::New(env, false);
#endif
}

}  // namespace sluice
