{
  "targets": [
    {
      "target_name": "virt_native",
      "sources": [
        "native/addon.cc",
        "native/runtime.cc",
        "native/worker.cc",
        "native/events.cc",
        "native/connection.cc",
        "native/domain.cc",
        "native/typed_params.cc",
        "native/agent.cc",
        "native/migration.cc",
        "native/dirtyrate.cc",
        "native/disk_errors.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra", "-Wno-unused-parameter",
                    "<!@(pkg-config --cflags libvirt libvirt-qemu)"],
      "cflags_cc!": ["-fno-exceptions"],
      "defines!": ["NAPI_DISABLE_CPP_EXCEPTIONS"],
      "libraries": ["<!@(pkg-config --libs libvirt libvirt-qemu)"]
    },
    {
      "target_name": "virt_preload",
      "sources": ["native/preload.c"],
      "cflags": ["-std=c11", "-Wall", "-Wextra"],
      "libraries": ["-ldl"]
    }
  ]
}
