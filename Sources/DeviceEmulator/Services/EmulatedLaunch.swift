import LaunchBench

/// One launch debugserver started on an emulated device: what the harness asked for, as the device
/// received it (tests check that arguments and environment values arrive intact).
package struct EmulatedLaunch: Sendable, Hashable {
    package var bundleID: String
    /// 1-based launch number of this bundle on this device since the lab started.
    package var number: Int
    package var kind: LaunchKindName
    /// argv as received (argv[0] = the executable's device path).
    package var arguments: [String]
    /// `QEnvironmentHexEncoded` variables in the order received.
    package var environment: [EnvironmentVariable]
}
