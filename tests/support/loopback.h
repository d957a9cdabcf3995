#pragma once
// 127.0.0.1:port as the socket calls take it (port 0: any free one), for the test support's own sockets.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>

namespace kapi::test_support {

inline sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

}  // namespace kapi::test_support
