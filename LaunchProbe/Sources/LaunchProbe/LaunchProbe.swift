import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Prints the launch markers launchbench reads: `[launchbench] mark=<name> t=<ms since process start>`,
/// then `[launchbench] done`.
///
/// Add it to the app and call, in order:
/// ```swift
/// LaunchProbe.mark(.main)                       // first line of main (or the App's init)
/// LaunchProbe.didFinishLaunching()              // end of application(_:didFinishLaunchingWithOptions:)
/// ```
/// `didFinishLaunching()` prints its marker and queues a block on the main run loop; the block runs once
/// the first frame has been committed, prints `firstFrame`, then `done`. When launchbench launched the app
/// (`LAUNCHBENCH_HARNESS=1` in the environment) the app exits right after `done`, so the next launch can
/// start at once. Times count from the kernel's process start time, so they include pre-main.
public enum LaunchProbe {
    /// The standard marker names.
    public enum Marker: String, Sendable {
        case main
        case didFinishLaunching
        case firstFrame
    }

    /// The environment variable launchbench sets on every launch it makes.
    public static let harnessVariable = "LAUNCHBENCH_HARNESS"

    /// Prints `[launchbench] mark=<name> t=<ms>`.
    public static func mark(_ marker: Marker) { mark(named: marker.rawValue) }

    /// Prints a custom marker (names without spaces or `=`).
    public static func mark(named name: String) {
        guard let ms = ProcessClock.millisecondsSinceStart() else { return }
        write(markerLine(name: name, milliseconds: ms))
    }

    /// Marks `didFinishLaunching` and schedules `firstFrame` + `done` on the main run loop's next turn.
    public static func didFinishLaunching() {
        mark(.didFinishLaunching)
        RunLoop.main.perform {
            mark(.firstFrame)
            done()
        }
    }

    /// Prints `[launchbench] done`; exits with status 0 when launched by launchbench.
    public static func done() {
        write(doneLine)
        if launchedByHarness(ProcessInfo.processInfo.environment) { exit(0) }
    }

    /// `[launchbench] mark=main t=412.7`: milliseconds with one decimal, `.` as separator.
    public static func markerLine(name: String, milliseconds: Double) -> String {
        "[launchbench] mark=\(name) t=\(String(format: "%.1f", milliseconds))\n"
    }

    /// The line `done()` prints: the end of the launch for launchbench.
    public static let doneLine = "[launchbench] done\n"

    /// Whether the environment says launchbench launched this process.
    public static func launchedByHarness(_ environment: [String: String]) -> Bool {
        environment[harnessVariable] == "1"
    }

    /// One unbuffered write per line: debugserver forwards it at once and lines never interleave.
    private static func write(_ line: String) {
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}

/// The time since the kernel started this process.
public enum ProcessClock {
    /// Milliseconds since process start (Darwin: `p_starttime` from sysctl `KERN_PROC_PID`; Linux:
    /// field 22 of `/proc/self/stat` against `CLOCK_BOOTTIME`), or `nil` when the kernel does not say.
    public static func millisecondsSinceStart() -> Double? {
        #if canImport(Darwin)
            var info = kinfo_proc()
            var size = MemoryLayout<kinfo_proc>.stride
            var name: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, getpid()]
            guard sysctl(&name, u_int(name.count), &info, &size, nil, 0) == 0 else { return nil }
            let start = info.kp_proc.p_un.__p_starttime
            var now = timeval()
            gettimeofday(&now, nil)
            let seconds = Double(now.tv_sec - start.tv_sec) + Double(Int(now.tv_usec) - Int(start.tv_usec)) / 1e6
            return seconds * 1000
        #elseif os(Linux)
            guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
                let ticks = startTicks(fromStat: stat)
            else { return nil }
            let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
            var now = timespec()
            guard ticksPerSecond > 0, clock_gettime(CLOCK_BOOTTIME, &now) == 0 else { return nil }
            let uptime = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            return (uptime - Double(ticks) / ticksPerSecond) * 1000
        #else
            return nil
        #endif
    }

    /// Field 22 (`starttime`, clock ticks after boot) of a `/proc/<pid>/stat` line. The command name
    /// (field 2) is in parentheses and may hold spaces and `)`, so fields are counted after the last `)`.
    public static func startTicks(fromStat line: String) -> UInt64? {
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // After the name come field 3 (state) onwards: starttime (22) is the 20th of them.
        guard fields.count >= 20 else { return nil }
        return UInt64(fields[19])
    }
}
