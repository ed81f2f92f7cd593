{
  # The sluice_native addon (Node-API through node-addon-api, built by node-gyp like ssh2's sshcrypto binding).
  # scripts/build-native.js runs `node-gyp rebuild` here; the engine loads build/Release/sluice_native.node through
  # app/node/sys/native.ts and falls back to JavaScript when it is missing.
  'targets': [
    {
      'target_name': 'sluice_native',
      'sources': [
        'src/addon.cc',
        'src/tcp_info.cc',
        'src/preallocate.cc',
        'src/data_ranges.cc',
        'src/sparse_file.cc',
        'src/hidden.cc',
      ],
      'include_dirs': [
        "<!(node -p \"require('node-addon-api').include_dir\")",
      ],
      'defines': [
        'NAPI_VERSION=8',
        'NODE_ADDON_API_DISABLE_CPP_EXCEPTIONS',
        # A call running while its worker thread is terminated (the engine's samplers run in workers) cannot throw:
        # without this node-addon-api aborts the whole process (FATAL ERROR: Error::ThrowAsJavaScriptException
        # napi_throw; node-addon-api PR #975, doc/setup.md). nativeWorker.test.ts terminates workers mid-call.
        'NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS',
      ],
      'cflags': [ '-O2', '-Wall', '-Wextra' ],
      'cflags_cc': [ '-std=c++17' ],
      'xcode_settings': {
        'CLANG_CXX_LANGUAGE_STANDARD': 'c++17',
        'MACOSX_DEPLOYMENT_TARGET': '10.15',
      },
      'msvs_settings': {
        'VCCLCompilerTool': { 'AdditionalOptions': [ '/std:c++17' ] },
      },
      'conditions': [
        [ 'OS=="win"', {
          'libraries': [ '-lws2_32' ],
          # TCP_INFO_v0 / SIO_TCP_INFO (mstcpip.h) are declared only for NTDDI_VERSION >= NTDDI_WIN10_RS2 (Windows 10
          # 1703); node-gyp sets neither, so the SDK's default hides them. _WIN32_WINNT must agree (sdkddkver.h).
          'defines': [ '_WIN32_WINNT=0x0A00', 'NTDDI_VERSION=0x0A000003', 'WIN32_LEAN_AND_MEAN', 'NOMINMAX' ],
        } ],
      ],
    },
  ],
}
