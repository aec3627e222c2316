import Foundation
import LaunchBench
import Testing

extension KdebugTests {
    /// Hand-written launches shaped as dyld emits them (timebase 1 tick = 1 ns; times in ms after the exec at
    /// 1 ms): each phase is the time its intervals cover, counted once, and dyld's mode decides what is readable.
    @Suite("dyld launch shapes")
    struct DyldPhaseShapesTests {
        static let thread: UInt64 = 0x700

        /// A launch: exec at 1 ms, bootstrap at 2, LAUNCH_EXECUTABLE 2…`mainAt` with END arg4 = `mode`, then `body`.
        static func launch(mode: UInt64, mainAt: Double = 30, _ body: [KdebugRecord]) -> [KdebugRecord] {
            [
                event(1, .traceDataExec, .none, [88]),
                event(2, .dyldBootstrapStart, .none),
                event(2, .dyldLaunchExecutable, .start, [1, 0xF000]),
            ] + body + [event(mainAt, .dyldLaunchExecutable, .end, [1, 0, 0, mode])]
        }

        static func event(
            _ ms: Double, _ id: KdebugDebugID, _ function: KdebugFunction, _ args: [UInt64] = [],
            thread: UInt64 = thread
        ) -> KdebugRecord {
            KdebugRecord(
                timestamp: UInt64(ms * 1_000_000), debugID: KdebugDebugID(rawValue: id.rawValue | function.rawValue),
                args: args, threadID: thread)
        }

        /// An interval with pair id `pair` from `start` to `end` ms.
        static func interval(
            _ id: KdebugDebugID, _ pair: UInt64, _ start: Double, _ end: Double, arg2: UInt64 = 0,
            thread: UInt64 = thread
        ) -> [KdebugRecord] {
            [
                event(start, id, .start, [pair, arg2], thread: thread),
                event(end, id, .end, [pair], thread: thread),
            ]
        }

        /// dyld4 on iOS 16–26 (dyld-1042.1 `Loader.cpp:1144`/`:1174`): ATTACH_CODESIGNATURE inside MAP_IMAGE on
        /// the same thread. Two images: 3–7 with its attach at 4–6, 8–10 with 8.5–9. Covered: 4 + 2 = 6 ms
        /// (the sum of all four would be 9).
        @Test func countsCodeSignatureNestedInMapImageOnce() throws {
            let records = Self.launch(
                mode: 4,
                Self.interval(.dyldMapImage, 2, 3, 7) + Self.interval(.dyldAttachCodeSignature, 3, 4, 6)
                    + Self.interval(.dyldMapImage, 4, 8, 10) + Self.interval(.dyldAttachCodeSignature, 5, 8.5, 9)
                    + Self.interval(.dyldApplyFixups, 6, 11, 13) + Self.interval(.dyldObjCMap, 7, 13, 14)
                    + Self.interval(.dyldStaticInitializer, 8, 15, 20, arg2: 0xA000))
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .nanoseconds))
            #expect(phases.dylibLoadingMs == 6.0)
            #expect(phases.rebaseBindingMs == 2.0)
            #expect(phases.objcSetupMs == 1.0)
            #expect(phases.initializerMs == 5.0)
            #expect(phases.dyldLaunchMode == 4)
            #expect(phases.totalPremainMs == 29.0)
        }

        /// Newer dyld's just-in-time loader attaches the signature outside the map (dyld-1378
        /// `DyldDelegates.cpp:648`): side by side, both count.
        @Test func countsTopLevelCodeSignatureBesideTheMap() throws {
            let records = Self.launch(
                mode: 0,
                Self.interval(.dyldAttachCodeSignature, 2, 3, 4) + Self.interval(.dyldMapImage, 3, 4, 7)
                    + Self.interval(.dyldApplyFixups, 4, 8, 9) + Self.interval(.dyldObjCMap, 5, 9, 10))
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .nanoseconds))
            #expect(phases.dylibLoadingMs == 4.0)
        }

        /// Intervals on two threads both count: the union is per thread.
        @Test func addsCoverageAcrossThreads() throws {
            var records = Self.launch(
                mode: 4,
                Self.interval(.dyldMapImage, 2, 3, 7) + Self.interval(.dyldApplyFixups, 4, 8, 9)
                    + Self.interval(.dyldObjCMap, 5, 9, 10))
            records.insert(Self.event(1, .traceDataNewThread, .none, [0x701, 88]), at: 1)
            records += Self.interval(.dyldMapImage, 9, 4, 6, thread: 0x701)
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .nanoseconds))
            #expect(phases.dylibLoadingMs == 6.0)
        }

        /// dyld4 gives libobjc the launch's images inside libSystem's initializer, with no OBJC_MAP
        /// (dyld-1378 `DyldRuntimeState.cpp:2129`): ObjC setup is unknown, never 0, and the note says where it went.
        @Test func leavesObjCSetupEmptyWithoutObjCMap() throws {
            let records = Self.launch(
                mode: 0,
                Self.interval(.dyldMapImage, 2, 3, 7) + Self.interval(.dyldApplyFixups, 4, 8, 9)
                    + Self.interval(.dyldStaticInitializer, 5, 10, 20, arg2: 0xA000)
                    + Self.interval(.dyldObjCInit, 6, 12, 14, arg2: 0xB000))
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .nanoseconds))
            #expect(phases.objcSetupMs == nil)
            #expect(phases.initializerMs == 10.0)  // OBJC_INIT runs inside libSystem's initializer: once
            #expect(
                phases.warnings.contains {
                    $0.hasPrefix("No OBJC_MAP interval in the launch") && $0.contains("libSystem's initializer")
                })
        }

        /// dyld3 (iOS 13–14, LAUNCH_EXECUTABLE END arg4 = 3): each STATIC_INITIALIZER timer is a temporary that
        /// ends at once (dyld-832.7.3 `dyld3/AllImages.cpp:1672`); fixups come once per image (`Loading.cpp:793`).
        @Test func leavesDyld3InitializersEmpty() throws {
            let records = Self.launch(
                mode: 3,
                Self.interval(.dyldMapImage, 2, 3, 7) + Self.interval(.dyldAttachCodeSignature, 3, 5, 6)
                    + Self.interval(.dyldApplyFixups, 4, 8, 9, arg2: 0x1000)
                    + Self.interval(.dyldApplyFixups, 5, 9, 10.5, arg2: 0x2000)
                    + Self.interval(.dyldObjCMap, 6, 11, 12) + Self.interval(.dyldObjCInit, 7, 12, 13, arg2: 0xB000)
                    + Self.interval(.dyldStaticInitializer, 8, 14, 14, arg2: 0xA000))
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .nanoseconds))
            #expect(phases.dyldLaunchMode == 3)
            #expect(phases.dylibLoadingMs == 4.0)
            #expect(phases.rebaseBindingMs == 2.5)
            #expect(phases.objcSetupMs == 1.0)
            #expect(phases.initializerMs == nil)
            #expect(phases.initializersByImage == [:])
            #expect(
                phases.warnings.filter { !$0.hasPrefix("No UUID_MAP") } == [
                    "A dyld3 launch (LAUNCH_EXECUTABLE END arg4 = 3, iOS 13–14): its STATIC_INITIALIZER timers end "
                        + "as they start, so initializer time is unknown from kdebug (dyld's printed statistics have it)."
                ])
        }

        /// `name` as TRACE_STRING_EXEC carries it: little-endian words of up to 32 bytes.
        static func execName(_ name: String, atMs ms: Double, thread: UInt64) -> KdebugRecord {
            let bytes = Array(name.utf8.prefix(31)) + [UInt8](repeating: 0, count: 32 - min(31, name.utf8.count))
            let words = (0..<4).map { word in
                (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[word * 8 + $1]) << (8 * UInt64($1)) }
            }
            return event(ms, .traceStringExec, .none, words, thread: thread)
        }

        /// launchd starts `xpcproxy`, which execs the app in the same pid: two execs, two full dyld launches, a new
        /// thread id at the second (a real capture). xpcproxy's launch: exec 1 ms, main at 30 on thread 0x700;
        /// the app's: exec 40 ms on thread 0x800, bootstrap 41, main 52.
        static func xpcproxyThenApp() -> [KdebugRecord] {
            let app: UInt64 = 0x800
            var xpcproxy = Self.launch(
                mode: 0, Self.interval(.dyldMapImage, 2, 3, 7) + Self.interval(.dyldObjCMap, 3, 8, 9))
            xpcproxy.insert(Self.execName("xpcproxy", atMs: 1, thread: thread), at: 1)
            return xpcproxy + [
                Self.event(40, .traceDataExec, .none, [88], thread: app),
                Self.execName("Demo", atMs: 40, thread: app),
                Self.event(41, .dyldBootstrapStart, .none, thread: app),
                Self.event(41.5, .dyldLaunchExecutable, .start, [0x51, 0xF000], thread: app),
                // UUID maps can come twice per image (a real capture): the path is the same.
                Self.event(41.5, .dyldUUIDMapA, .none, [0, 0, 0xF000, 0], thread: app),
                Self.event(41.5, .dyldUUIDMapA, .none, [0, 0, 0xF000, 0], thread: app),
            ] + Self.interval(.dyldMapImage, 0x52, 42, 45, thread: app)
                + Self.interval(.dyldApplyFixups, 0x53, 45, 46, thread: app)
                + Self.interval(.dyldObjCMap, 0x54, 46, 47, thread: app)
                + [Self.event(52, .dyldLaunchExecutable, .end, [0x51, 0, 0, 0], thread: app)]
        }

        @Test func choosesTheLaunchByTheExecutablesName() throws {
            let records = Self.xpcproxyThenApp()
            let phases = try #require(
                DyldLaunchPhases(records: records, timebase: .nanoseconds, selection: .executable("Demo")))
            #expect(phases.pid == 88)
            #expect(phases.mainThreadID == 0x800)
            #expect(phases.execTimestamp == 40_000_000)
            #expect(phases.processCreationMs == 1.0)
            #expect(phases.totalPremainMs == 12.0)
            #expect(phases.dylibLoadingMs == 3.0)
            #expect(phases.timeline.allSatisfy { $0.threadID == 0x800 })
            #expect(DyldLaunchPhases(records: records, timebase: .nanoseconds, selection: .executable("Other")) == nil)
        }
    }
}
