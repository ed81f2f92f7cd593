// tcpInfo(fd): the kernel's view of one TCP connection, from the socket's descriptor.
//   Linux:   getsockopt(IPPROTO_TCP, TCP_INFO) -> struct tcp_info (linux/tcp.h); fields a kernel older than the
//            headers does not fill (the returned length ends before them) are left out of the result.
//   macOS:   getsockopt(IPPROTO_TCP, TCP_CONNECTION_INFO) -> struct tcp_connection_info (netinet/tcp.h, macOS 10.11+).
//   Windows: WSAIoctl(SIO_TCP_INFO, version 0) -> TCP_INFO_v0 (mstcpip.h, Windows 10 1703+); `fd` is the SOCKET.
// Only the Linux branch is compiled and tested here; the macOS and Windows branches are written to their
// documentation and have never been built (no such toolchain on this machine).
// Result keys (undefined where the platform has no such counter):
//   rtt, rttvar, min_rtt (µs); snd_cwnd (segments); snd_mss (bytes); total_retrans (segments);
//   delivery_rate (bytes/s); busy_time, rwnd_limited, sndbuf_limited (µs); bytes_acked, bytes_received (bytes).
#include "common.h"

#include <cerrno>
#include <cstddef>

#if defined(__linux__)
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#elif defined(__APPLE__)
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#elif defined(_WIN32)
#include <winsock2.h>
#include <mstcpip.h>
// TCP_INFO_v0 and SIO_TCP_INFO exist from Windows 10 1703 (NTDDI_WIN10_RS2); binding.gyp sets NTDDI_VERSION for win.
#if !defined(NTDDI_WIN10_RS2) || NTDDI_VERSION < NTDDI_WIN10_RS2
#error "sluice_native needs NTDDI_VERSION >= NTDDI_WIN10_RS2 (0x0A000003) for TCP_INFO_v0: see native/binding.gyp"
#endif
#endif

namespace sluice {

namespace {

void Put(Napi::Object& o, const char* key, double v) { o.Set(key, Napi::Number::New(o.Env(), v)); }

#if defined(__linux__)
// Whether the kernel filled `field` (its end lies within the length getsockopt returned).
#define FILLED(len, field) ((len) >= offsetof(struct tcp_info, field) + sizeof(((struct tcp_info*)0)->field))

Napi::Value Read(Napi::Env env, int fd) {
  struct tcp_info ti = {};
  socklen_t len = sizeof(ti);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return ThrowErrno(env, errno, "getsockopt(TCP_INFO)");
  size_t n = len;
  Napi::Object o = Napi::Object::New(env);
  Put(o, "rtt", ti.tcpi_rtt);
  Put(o, "rttvar", ti.tcpi_rttvar);
  Put(o, "snd_cwnd", ti.tcpi_snd_cwnd);
  Put(o, "snd_mss", ti.tcpi_snd_mss);
  Put(o, "total_retrans", ti.tcpi_total_retrans);
  if (FILLED(n, tcpi_bytes_acked)) Put(o, "bytes_acked", static_cast<double>(ti.tcpi_bytes_acked));
  if (FILLED(n, tcpi_bytes_received)) Put(o, "bytes_received", static_cast<double>(ti.tcpi_bytes_received));
  if (FILLED(n, tcpi_min_rtt)) Put(o, "min_rtt", ti.tcpi_min_rtt);
  if (FILLED(n, tcpi_delivery_rate)) Put(o, "delivery_rate", static_cast<double>(ti.tcpi_delivery_rate));
  if (FILLED(n, tcpi_busy_time)) Put(o, "busy_time", static_cast<double>(ti.tcpi_busy_time));
  if (FILLED(n, tcpi_rwnd_limited)) Put(o, "rwnd_limited", static_cast<double>(ti.tcpi_rwnd_limited));
  if (FILLED(n, tcpi_sndbuf_limited)) Put(o, "sndbuf_limited", static_cast<double>(ti.tcpi_sndbuf_limited));
  return o;
}
#elif defined(__APPLE__)
Napi::Value Read(Napi::Env env, int fd) {
  struct tcp_connection_info ti = {};
  socklen_t len = sizeof(ti);
  if (getsockopt(fd, IPPROTO_TCP, TCP_CONNECTION_INFO, &ti, &len) != 0) {
    return ThrowErrno(env, errno, "getsockopt(TCP_CONNECTION_INFO)");
  }
  Napi::Object o = Napi::Object::New(env);
  // tcpi_srtt and tcpi_rttvar are in milliseconds; the congestion window in bytes.
  Put(o, "rtt", ti.tcpi_srtt * 1000.0);
  Put(o, "rttvar", ti.tcpi_rttvar * 1000.0);
  Put(o, "snd_mss", ti.tcpi_maxseg);
  Put(o, "snd_cwnd", ti.tcpi_maxseg ? ti.tcpi_snd_cwnd / ti.tcpi_maxseg : 0);
  Put(o, "total_retrans", static_cast<double>(ti.tcpi_txretransmitpackets));
  Put(o, "bytes_acked", static_cast<double>(ti.tcpi_txbytes));
  Put(o, "bytes_received", static_cast<double>(ti.tcpi_rxbytes));
  return o;
}
#elif defined(_WIN32)
Napi::Value Read(Napi::Env env, int64_t fd) {
  SOCKET s = static_cast<SOCKET>(fd);
  DWORD version = 0;
  TCP_INFO_v0 ti = {};
  DWORD got = 0;
  if (WSAIoctl(s, SIO_TCP_INFO, &version, sizeof(version), &ti, sizeof(ti), &got, nullptr, nullptr) != 0) {
    Napi::Error e = Napi::Error::New(env, "WSAIoctl(SIO_TCP_INFO) failed");
    e.Set("code", Napi::String::New(env, "EWSA"));
    e.Set("errno", Napi::Number::New(env, WSAGetLastError()));
    e.ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Object o = Napi::Object::New(env);
  Put(o, "rtt", ti.RttUs);
  Put(o, "rttvar", 0);
  Put(o, "min_rtt", ti.MinRttUs);
  Put(o, "snd_mss", ti.Mss);
  Put(o, "snd_cwnd", ti.Mss ? ti.Cwnd / ti.Mss : 0);
  Put(o, "total_retrans", static_cast<double>(ti.FastRetrans + ti.TimeoutEpisodes));
  Put(o, "bytes_acked", static_cast<double>(ti.BytesOut));
  Put(o, "bytes_received", static_cast<double>(ti.BytesIn));
  return o;
}
#endif

}  // namespace

Napi::Value TcpInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int64_t fd;
  if (!IntArg(info, 0, &fd)) return env.Undefined();
#if defined(__linux__) || defined(__APPLE__)
  if (fd < 0) return ThrowErrno(env, EBADF, "getsockopt");
  return Read(env, static_cast<int>(fd));
#elif defined(_WIN32)
  return Read(env, fd);
#else
  return env.Undefined();
#endif
}

}  // namespace sluice
