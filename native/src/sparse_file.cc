// setSparse(fd): marks a download's temporary file sparse before it is extended to its full size (issue #30 item 8).
//   Windows: DeviceIoControl(FSCTL_SET_SPARSE) on uv_get_osfhandle(fd). NTFS keeps a "valid data length" per file:
//            a write beyond it first zero-fills the gap, synchronously, so segments written at far offsets of a file
//            set to its full size stall and write their bytes twice. In a sparse file the gap is a hole instead.
//            Written to the SDK documentation; not compiled here (no Windows toolchain).
//   elsewhere: nothing to do (ext4, APFS, XFS extend lazily): false.
// Returns true when the file is now sparse, false where the file system cannot (FAT, exFAT: ERROR_INVALID_FUNCTION)
// or the platform has no such step; throws an Error with code EBADF when the handle cannot be looked up.
#include "common.h"

#include <cerrno>

#if defined(_WIN32)
#include <uv.h>
#include <windows.h>
#include <winioctl.h>
#endif

namespace sluice {

Napi::Value SetSparse(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int64_t fd;
  if (!IntArg(info, 0, &fd)) return env.Undefined();
  if (fd < 0) return ThrowErrno(env, EBADF, "setSparse");
#if defined(_WIN32)
  HANDLE h = uv_get_osfhandle(static_cast<uv_file>(fd));
  if (h == INVALID_HANDLE_VALUE) return ThrowErrno(env, EBADF, "uv_get_osfhandle");
  FILE_SET_SPARSE_BUFFER set = {};
  set.SetSparse = TRUE;
  DWORD got = 0;
  BOOL ok = DeviceIoControl(h, FSCTL_SET_SPARSE, &set, sizeof(set), nullptr, 0, &got, nullptr);
  return Napi::Boolean::New(env, ok != FALSE);
#else
  return Napi::Boolean::New(env, false);
#endif
}

}  // namespace sluice
