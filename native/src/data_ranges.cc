// dataRanges(fd, size): where a (sparse) file holds data, so an upload can skip its holes.
//   Linux, macOS: lseek(SEEK_DATA) / lseek(SEEK_HOLE) from 0 to `size` (lseek(2); macOS only the Linux
//                 branch's twin, not compiled here).
//   Windows:      DeviceIoControl(FSCTL_QUERY_ALLOCATED_RANGES) on uv_get_osfhandle(fd); not compiled here.
// Returns an Array of [start, end) pairs in file order, clipped to `size`, or null when the file system cannot say
// (SEEK_DATA unsupported: EINVAL/EOPNOTSUPP): the caller then treats the whole file as data. A file system that does
// not track holes answers with one range covering the file, which is right too.
#include "common.h"

#include <cerrno>
#include <vector>

#if defined(__linux__) || defined(__APPLE__)
#include <unistd.h>
#elif defined(_WIN32)
#include <uv.h>  // uv_get_osfhandle: the fd is Node's (libuv's CRT); the addon's own CRT (_get_osfhandle) cannot see it
#include <windows.h>
#include <winioctl.h>
#endif

namespace sluice {

namespace {

Napi::Value ToArray(Napi::Env env, const std::vector<std::pair<int64_t, int64_t>>& ranges) {
  Napi::Array out = Napi::Array::New(env, ranges.size());
  for (size_t i = 0; i < ranges.size(); i++) {
    Napi::Array pair = Napi::Array::New(env, 2);
    pair.Set(uint32_t(0), Napi::Number::New(env, static_cast<double>(ranges[i].first)));
    pair.Set(uint32_t(1), Napi::Number::New(env, static_cast<double>(ranges[i].second)));
    out.Set(static_cast<uint32_t>(i), pair);
  }
  return out;
}

}  // namespace

Napi::Value DataRanges(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int64_t fd, size;
  if (!IntArg(info, 0, &fd) || !IntArg(info, 1, &size)) return env.Undefined();
  if (fd < 0) return ThrowErrno(env, EBADF, "dataRanges");
  std::vector<std::pair<int64_t, int64_t>> ranges;
#if defined(SEEK_DATA) && defined(SEEK_HOLE)
  int64_t pos = 0;
  while (pos < size) {
    off_t data = lseek(static_cast<int>(fd), static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0) {
      if (errno == ENXIO) break;  // no data after pos: the rest is a hole
      if (errno == EINVAL || errno == EOPNOTSUPP || errno == ENOTSUP) return env.Null();
      return ThrowErrno(env, errno, "lseek(SEEK_DATA)");
    }
    if (data >= size) break;
    off_t hole = lseek(static_cast<int>(fd), data, SEEK_HOLE);
    if (hole < 0) return ThrowErrno(env, errno, "lseek(SEEK_HOLE)");
    int64_t end = hole > size ? size : static_cast<int64_t>(hole);
    ranges.emplace_back(static_cast<int64_t>(data), end);
    pos = end;
  }
  return ToArray(env, ranges);
#elif defined(_WIN32)
  HANDLE h = uv_get_osfhandle(static_cast<uv_file>(fd));
  if (h == INVALID_HANDLE_VALUE) return ThrowErrno(env, EBADF, "uv_get_osfhandle");
  FILE_ALLOCATED_RANGE_BUFFER query, found[64];
  query.FileOffset.QuadPart = 0;
  query.Length.QuadPart = size;
  for (;;) {
    DWORD got = 0;
    BOOL ok = DeviceIoControl(h, FSCTL_QUERY_ALLOCATED_RANGES, &query, sizeof(query), found, sizeof(found), &got, nullptr);
    DWORD err = ok ? 0 : GetLastError();
    if (!ok && err != ERROR_MORE_DATA) return env.Null();
    size_t n = got / sizeof(found[0]);
    for (size_t i = 0; i < n; i++) {
      int64_t a = found[i].FileOffset.QuadPart;
      ranges.emplace_back(a, a + found[i].Length.QuadPart > size ? size : a + found[i].Length.QuadPart);
    }
    if (ok || n == 0) break;
    int64_t next = found[n - 1].FileOffset.QuadPart + found[n - 1].Length.QuadPart;
    query.FileOffset.QuadPart = next;
    query.Length.QuadPart = size - next;
  }
  return ToArray(env, ranges);
#else
  (void)size;
  return env.Null();
#endif
}

}  // namespace sluice
