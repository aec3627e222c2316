import LaunchBench
import Testing

extension KdebugTests {
    @Suite("Launches in a kdebug trace")
    struct KdebugLaunchesTests {
        /// 125/3: 24 ticks are 1 µs, 24 000 ticks 1 ms.
        static let ms: UInt64 = 24_000

        static func exec(_ at: UInt64, pid: UInt64, thread: UInt64, name: String) -> [KdebugRecord] {
            var text = Array(name.utf8) + Array(repeating: 0, count: 32 - name.utf8.count)
            func u64() -> UInt64 {
                defer { text.removeFirst(8) }
                return text.prefix(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
            }
            return [
                KdebugRecord(timestamp: at, debugID: .traceDataExec, args: [pid], threadID: thread),
                KdebugRecord(
                    timestamp: at, debugID: .traceStringExec, args: [u64(), u64(), u64(), u64()], threadID: thread),
            ]
        }

        static func dyldLaunch(_ at: UInt64, thread: UInt64, pair: UInt64, mainAt: UInt64) -> [KdebugRecord] {
            let start = KdebugDebugID(rawValue: KdebugDebugID.dyldLaunchExecutable.rawValue | 1)
            let end = KdebugDebugID(rawValue: KdebugDebugID.dyldLaunchExecutable.rawValue | 2)
            return [
                KdebugRecord(timestamp: at, debugID: .dyldBootstrapStart, threadID: thread),
                KdebugRecord(timestamp: at + 1, debugID: start, args: [pair, 0x1_0000_0000], threadID: thread),
                KdebugRecord(timestamp: mainAt, debugID: end, args: [pair], threadID: thread),
            ]
        }

        /// launchd spawns xpcproxy (pid 500), which execs the app in the same pid: two launches, each
        /// measured from its own exec. Clock: exec at 10 ms, dyld's start at 12 ms, main at 20 ms.
        static let xpcproxyThenApp =
            exec(1 * ms, pid: 500, thread: 0x22, name: "xpcproxy")
            + dyldLaunch(2 * ms, thread: 0x22, pair: 1, mainAt: 4 * ms)
            + exec(10 * ms, pid: 500, thread: 0x22, name: "Clock")
            + dyldLaunch(12 * ms, thread: 0x22, pair: 2, mainAt: 20 * ms)
            + exec(30 * ms, pid: 600, thread: 0x33, name: "cfprefsd-no-dyld-events")

        @Test func findsEachExecThatLaunches() throws {
            let trace = KdebugTrace(header: nil, records: Self.xpcproxyThenApp)
            let launches = KdebugLaunches.find(in: trace, timebase: .iPhone)
            #expect(launches.map(\.executable) == ["xpcproxy", "Clock"])
            #expect(launches.map(\.pid) == [500, 500])
            #expect(launches.map(\.phases.totalPremainMs) == [3, 10])
            #expect(launches.map(\.phases.processCreationMs) == [1, 2])
            #expect(launches.filter { $0.isProcess(named: "Clock") }.map(\.phases.totalPremainMs) == [10])
        }

        /// A whole session: 200 app launches among other processes' records, each measured on its own.
        @Test(.timeLimit(.minutes(1))) func findsEveryLaunchOfALongSession() {
            var records: [KdebugRecord] = []
            for launch in 0..<200 {
                let at = UInt64(launch) * 100 * Self.ms
                let thread = UInt64(0x1000 + launch)
                records += Self.exec(at, pid: UInt64(1000 + launch), thread: thread, name: "App\(launch)")
                // Main comes 1 ms later for each launch: 2 ms exec → dyld, then 5 + launch % 7 ms to main.
                records += Self.dyldLaunch(
                    at + 2 * Self.ms, thread: thread, pair: 1, mainAt: at + UInt64(7 + launch % 7) * Self.ms)
                for noise in 0..<100 {
                    records.append(
                        KdebugRecord(
                            timestamp: at + UInt64(noise) * Self.ms, debugID: KdebugDebugID(rawValue: 0x0403_0000),
                            threadID: 7))
                }
            }
            let launches = KdebugLaunches.find(in: KdebugTrace(header: nil, records: records), timebase: .iPhone)
            #expect(launches.count == 200)
            #expect(launches.map(\.pid) == (0..<200).map { 1000 + $0 })
            #expect(launches.map(\.phases.totalPremainMs) == (0..<200).map { Double(7 + $0 % 7) })
        }

        @Test func matchesCutExecNames() {
            let long = "LongApplicationName"
            let cut = KdebugLaunch(
                executable: "LongApplicatio", pid: 1,
                phases: DyldLaunchPhases(
                    trace: KdebugTrace(header: nil, records: Self.xpcproxyThenApp), timebase: .iPhone)!)
            #expect(!cut.isProcess(named: long))  // 14 bytes: too short to be a cut name
            var fifteen = cut
            fifteen.executable = "LongApplication"
            #expect(fifteen.isProcess(named: long))
            #expect(!fifteen.isProcess(named: "Other"))
        }

        /// Without exec events, each thread that starts dyld's launch is one launch, named by the thread map.
        @Test func findsLaunchesByThreadWithoutExecs() {
            let records =
                Self.dyldLaunch(2 * Self.ms, thread: 0x44, pair: 1, mainAt: 5 * Self.ms)
                + Self.dyldLaunch(7 * Self.ms, thread: 0x55, pair: 2, mainAt: 8 * Self.ms)
            let header = KdebugHeader(
                seconds: 0, microseconds: 0, flags: 1, tickFrequency: 24_000_000,
                threads: [KdebugThread(threadID: 0x44, pid: 71, processName: "Weather")])
            let launches = KdebugLaunches.find(in: KdebugTrace(header: header, records: records), timebase: .iPhone)
            #expect(launches.map(\.executable) == ["Weather", nil])
            #expect(launches.map(\.pid) == [71, nil])
            #expect(launches.map(\.phases.mainMs) == [3, 1])
        }

        @Test func timebaseComesFromTheHeader() {
            let header = KdebugHeader(seconds: 0, microseconds: 0, flags: 1, tickFrequency: 24_000_000, threads: [])
            #expect(KdebugFile.timebase(of: header).timebase == .iPhone)
            #expect(KdebugFile.timebase(of: header).note == nil)
            var none = header
            none.tickFrequency = 0
            #expect(KdebugFile.timebase(of: none).note != nil)
        }
    }
}
