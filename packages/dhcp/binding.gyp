{
  "targets": [
    {
      "target_name": "virt_dhcp_socket",
      "sources": ["native/bound_udp_socket.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_DISABLE_CPP_EXCEPTIONS", "NAPI_VERSION=8"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra"]
    },
    {
      "target_name": "virt_dhcp_icmp6",
      "sources": ["native/icmp6_socket.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_DISABLE_CPP_EXCEPTIONS", "NAPI_VERSION=8"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra"]
    }
  ]
}
