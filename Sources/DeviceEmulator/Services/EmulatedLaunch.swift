import LaunchBench

/// One launch debugserver started on an emulated device: what the harness asked for, as the device
/// received it (tests check that arguments and environment values arrive intact).
public struct EmulatedLaunch: Sendable, Hashable {
    public var bundleID: String
    /// 1-based launch number of this bundle on this device since the lab started.
    public var number: Int
    public var kind: LaunchKindName
    /// argv as received (argv[0] = the executable's device path).
    public var arguments: [String]
    /// `QEnvironmentHexEncoded` variables in the order received.
    public var environment: [EnvironmentVariable]
}
