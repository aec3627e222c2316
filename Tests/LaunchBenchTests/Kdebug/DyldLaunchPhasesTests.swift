import Foundation
import LaunchBench
import Testing

extension KdebugTests {
    @Suite("dyld launch phases from kdebug")
    struct DyldLaunchPhasesTests {
        /// kdebug_synth.py's launch, hand-checked from its records (ticks after exec; 24 000 ticks = 1 ms):
        /// bootstrap 48 000; MAP_IMAGE A 72 000–96 000, B 98 399–146 400 (kdebug_synth's `int(4.1 * 24000)` is
        /// 98 399), C 148 799–220 799; APPLY_FIXUPS 228 000–324 000; OBJC_MAP 326 400–362 400; OBJC_INIT (A)
        /// 364 800–376 800; STATIC_INITIALIZER B 379 200–499 200, main executable 501 599–669 600; LAUNCH_EXECUTABLE
        /// 60 000–672 000.
        @Test func measuresTheSynthLaunch() throws {
            let trace = try KdebugFixtures.synth()
            let phases = try #require(
                DyldLaunchPhases(records: trace.records, timebase: .iPhone, threads: trace.header?.threads ?? []))
            #expect(phases.warnings == [])
            #expect(phases.pid == 4243)
            #expect(phases.processName == "Demo")
            #expect(phases.mainThreadID == KdebugFixtures.synthThread)
            #expect(phases.execTimestamp == KdebugFixtures.synthExec)
            #expect(phases.processCreationMs == 2.0)  // 48 000 ticks
            #expect(phases.totalPremainMs == 28.0)  // 672 000 ticks
            #expect(phases.mainMs == 28.0)
            // 24 000 + 48 001 + 72 000 ticks = 6 000 041.67 ns
            #expect(KdebugFixtures.ns(phases.dylibLoadingMs) == 6_000_042)
            #expect(phases.rebaseBindingMs == 4.0)
            #expect(phases.objcSetupMs == 1.5)
            #expect(KdebugFixtures.ns(phases.initializerMs) == 12_500_042)  // 12 000 + 120 000 + 168 001 ticks
            #expect(phases.closureBuildMs == nil)
            #expect(phases.initializersByImage.count == 3)
            #expect(phases.initializersByImage[KdebugFixtures.imageA] == 0.5)
            #expect(phases.initializersByImage[KdebugFixtures.imageB] == 5.0)
            // 168 001 ticks
            #expect(KdebugFixtures.ns(phases.initializersByImage[KdebugFixtures.mainExecutable]) == 7_000_042)
            #expect(
                phases.timeline.map(\.kind) == [
                    .launchExecutable, .mapImage, .mapImage, .mapImage, .applyFixups, .objcMap, .objcInit,
                    .staticInitializer, .staticInitializer,
                ])
            #expect(
                phases.timeline.map(\.image) == [
                    KdebugFixtures.mainExecutable, KdebugFixtures.imageA, KdebugFixtures.imageB, KdebugFixtures.imageC,
                    nil, nil, KdebugFixtures.imageA, KdebugFixtures.imageB, KdebugFixtures.mainExecutable,
                ])
            #expect(phases.timeline.map(\.pairID) == [0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49])
            let b = phases.timeline[2]
            #expect(
                b.startTimestamp == KdebugFixtures.synthExec + 98_399
                    && b.endTimestamp == KdebugFixtures.synthExec + 146_400)
            #expect(KdebugFixtures.ns(b.startMs) == 4_099_958 && b.endMs == 6.1)
            #expect(phases.timeline[7].machHeader == 0x1_011B_0000)
        }

        @Test func selectsALaunchByPidOrThread() throws {
            let trace = try KdebugFixtures.synth()
            // A second launch, 1 s later: pid 4300 on thread 0x22000.
            let second = trace.records.map { record -> KdebugRecord in
                var record = record
                record.timestamp += 24_000_000
                if record.threadID == KdebugFixtures.synthThread { record.threadID = 0x22000 }
                if record.debugID == .traceDataNewThread { (record.arg1, record.arg2) = (0x22000, 4300) }
                if record.debugID == .traceDataExec { record.arg1 = 4300 }
                return record
            }
            let records = trace.records + second
            let first = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            #expect(first.pid == 4243 && first.totalPremainMs == 28.0 && first.timeline.count == 9)
            let byPid = try #require(DyldLaunchPhases(records: records, timebase: .iPhone, selection: .pid(4300)))
            #expect(byPid.execTimestamp == KdebugFixtures.synthExec + 24_000_000)
            #expect(byPid.mainThreadID == 0x22000)
            #expect(byPid.totalPremainMs == 28.0 && byPid.timeline.count == 9 && byPid.warnings == [])
            let byThread = try #require(
                DyldLaunchPhases(records: records, timebase: .iPhone, selection: .mainThread(0x22000)))
            #expect(byThread.pid == 4300 && byThread.totalPremainMs == 28.0)
            #expect(DyldLaunchPhases(records: records, timebase: .iPhone, selection: .pid(9999)) == nil)
        }

        /// matan1008/pykdebugparser tests/traces/test_dyld.py (2da81e7): BOOTSTRAP_START (line 100),
        /// LAUNCH_EXECUTABLE with a UUID_MAP_A inside (line 60), FUNC_FOR_ADD_IMAGE (line 82) and a dlopen with its
        /// path string (line 111), as real records. They carry no exec event, so times count from BOOTSTRAP_START
        /// (2 375 523 577 973). The timebase of the phone they came from is not recorded; 125/3 is assumed.
        @Test func measuresPykdebugparsersRecords() throws {
            let trace = try KdebugTrace(bytes: KdebugFixtures.bytes("pykdebugparser-dyld.kdebug"))
            #expect(trace.header == nil)
            #expect(trace.records.count == 13)
            let phases = try #require(DyldLaunchPhases(records: trace.records, timebase: .iPhone))
            #expect(phases.pid == nil)
            #expect(phases.mainThreadID == 227_140)
            #expect(phases.execTimestamp == nil)
            #expect(phases.originTimestamp == 2_375_523_577_973)
            #expect(phases.bootstrapMs == 0)
            // LAUNCH_EXECUTABLE: START 2 375 523 588 323 (10 350 ticks = 0.43125 ms after bootstrap), END
            // 2 375 524 298 242 (720 269 ticks = 30.011208 ms), pair id 1 in both.
            #expect(KdebugFixtures.ns(phases.mainMs) == 30_011_208)
            #expect(phases.timeline.count == 1)
            let launch = phases.timeline[0]
            #expect(launch.kind == .launchExecutable && launch.pairID == 1)
            #expect(launch.startMs == 0.43125)
            #expect(launch.ticks == 709_919)
            #expect(launch.image == "0x100970000")  // no UUID_MAP_B in the tuples, so no path
            #expect(phases.processCreationMs == nil)
            #expect(phases.totalPremainMs == nil)
            #expect(phases.rebaseBindingMs == nil)
            // A real dyld3 launch: LAUNCH_EXECUTABLE END arg4 = 3. The tuples hold no MAP_IMAGE inside it (dylib
            // loading covers nothing), no OBJC_MAP (ObjC setup ran untimed in libSystem's initializer), and
            // dyld3's initializer timers end at once (initializer time unknown).
            #expect(phases.dyldLaunchMode == 3)
            #expect(phases.dylibLoadingMs == 0 && phases.objcSetupMs == nil && phases.initializerMs == nil)
            #expect(
                phases.warnings == [
                    "No TRACE_DATA_EXEC (0x07000008) for thread 227140: process creation and total pre-main are "
                        + "unknown, and times count from BOOTSTRAP_START (or the first dyld event); trace with class 7 "
                        + "(0x07FF0000) enabled.",
                    "No APPLY_FIXUPS interval in the launch: rebase/binding time is unknown.",
                    "No OBJC_MAP interval in the launch: dyld hands the images loaded at launch to libobjc inside "
                        + "libSystem's initializer, untimed, so ObjC setup is unknown on its own; its time is part of "
                        + "libSystem's initializer time.",
                    "A dyld3 launch (LAUNCH_EXECUTABLE END arg4 = 3, iOS 13–14): its STATIC_INITIALIZER timers end "
                        + "as they start, so initializer time is unknown from kdebug (dyld's printed statistics have it).",
                    "No UUID_MAP path for mach header(s) 0x100970000: they are named by address; trace with "
                        + "0x1F050000 and 0x07010000 enabled.",
                ])
        }

        /// dyld pairs START and END by the trace-pair id in arg1. Here two initializers on one thread overlap
        /// without nesting (START 7, START 8, END 7, END 8): pairing by nesting would give 2 ms and 7 ms. The
        /// phase is the time they cover, 2…9 ms once: 7 ms, not 3 + 6.
        @Test func pairsByTraceIDWhenIntervalsInterleave() throws {
            let thread: UInt64 = 0x500
            func event(_ ms: UInt64, _ id: KdebugDebugID, _ function: KdebugFunction, _ args: [UInt64] = [])
                -> KdebugRecord
            {
                KdebugRecord(
                    timestamp: ms * 1_000_000, debugID: KdebugDebugID(rawValue: id.rawValue | function.rawValue),
                    args: args, threadID: thread)
            }
            let pathA = "/x/A.framework/A"
            let records = [
                event(1, .traceDataExec, .none, [77]),
                event(2, .dyldBootstrapStart, .none),
                event(2, .dyldLaunchExecutable, .start, [1, 0xF000]),
                event(
                    2, .traceStringGlobal, .startAndEnd,
                    [KdebugDebugID.dyldUUIDMapB.rawValue].map(UInt64.init) + [9]
                        + pack(pathA)),
                event(2, .dyldUUIDMapA, .none, [0, 0, 0xA000, 0]),
                event(2, .dyldUUIDMapB, .none, [0, 9]),
                event(3, .dyldApplyFixups, .start, [2]),
                event(3, .dyldApplyFixups, .end, [2]),
                event(3, .dyldStaticInitializer, .start, [7, 0xA000, 0xA100]),
                event(4, .dyldStaticInitializer, .start, [8, 0xB000, 0xB100]),
                event(6, .dyldStaticInitializer, .end, [7]),
                event(10, .dyldStaticInitializer, .end, [8]),
                event(11, .dyldLaunchExecutable, .end, [1]),
            ]
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .nanoseconds))
            #expect(phases.pid == 77)
            #expect(phases.initializersByImage == [pathA: 3.0, "0xb000": 6.0])
            let initializers = phases.timeline.filter { $0.kind == .staticInitializer }
            #expect(initializers.map(\.pairID) == [7, 8])
            // START arg3 − arg2: the initializer's offset in its image.
            #expect(initializers.map(\.initializerOffset) == [0x100, 0x100])
            #expect(initializers.map(\.startMs) == [2.0, 3.0])
            #expect(initializers.map(\.endMs) == [5.0, 9.0])
            #expect(phases.initializerMs == 7.0)
            // 0-length fixups, but the initializers are real: not iOS 15's pattern.
            #expect(phases.rebaseBindingMs == 0)
            #expect(phases.totalPremainMs == 10.0)
            #expect(phases.processCreationMs == 1.0)
        }

        private func pack(_ text: String) -> [UInt64] {
            let bytes = Array(text.utf8) + [UInt8](repeating: 0, count: 16 - text.utf8.count)
            return [0, 8].map { offset in
                (0..<8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
            }
        }

        /// dyld-940…960 end the launch fixups and static initializer timers at once: START and END back to back.
        @Test func leavesIOS15ZeroLengthTimersUnknown() throws {
            let records = try KdebugFixtures.synth().records
            var startOf: [UInt64: UInt64] = [:]
            let ios15 = records.map { record -> KdebugRecord in
                var record = record
                let event = record.debugID.eventID
                guard event == .dyldApplyFixups || event == .dyldStaticInitializer else { return record }
                if record.debugID.function == .start { startOf[record.arg1] = record.timestamp }
                if record.debugID.function == .end { record.timestamp = startOf[record.arg1]! + 2 }  // 83 ns
                return record
            }
            let phases = try #require(DyldLaunchPhases(records: ios15, timebase: .iPhone))
            #expect(phases.rebaseBindingMs == nil)
            #expect(phases.initializerMs == nil)
            #expect(phases.initializersByImage == [:])
            #expect(KdebugFixtures.ns(phases.dylibLoadingMs) == 6_000_042)
            #expect(phases.objcSetupMs == 1.5)
            #expect(phases.totalPremainMs == 28.0)
            #expect(
                phases.warnings == [
                    "APPLY_FIXUPS and all 2 STATIC_INITIALIZER intervals last under 1 µs while other intervals are "
                        + "real: dyld-940…960 (iOS 15) ends those timers at once, so rebase/binding and initializer "
                        + "times are unknown on this OS."
                ])
        }

        @Test func leavesAPhaseWithAnUnpairedStartUnknown() throws {
            let records = KdebugFixtures.removing(try KdebugFixtures.synth().records, .dyldMapImage, .end, pair: 0x43)
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            #expect(phases.dylibLoadingMs == nil)
            #expect(phases.rebaseBindingMs == 4.0)
            #expect(phases.totalPremainMs == 28.0)
            #expect(
                phases.timeline.filter { $0.kind == .mapImage }.map(\.image) == [
                    KdebugFixtures.imageA, KdebugFixtures.imageC,
                ])
            #expect(
                phases.warnings == [
                    "MAP_IMAGE START at +4.100 ms (pair id 0x43) has no END: dylib loading is unknown."
                ])
        }

        @Test func leavesAPhaseWithAnUnpairedEndUnknown() throws {
            let records = KdebugFixtures.removing(try KdebugFixtures.synth().records, .dyldObjCMap, .start, pair: 0x46)
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            #expect(phases.objcSetupMs == nil)
            #expect(KdebugFixtures.ns(phases.initializerMs) == 12_500_042)
            #expect(
                phases.warnings == ["OBJC_MAP END at +15.100 ms (pair id 0x46) has no START: ObjC setup is unknown."])
        }

        @Test func leavesTotalUnknownWithoutLaunchExecutableEnd() throws {
            let records = KdebugFixtures.removing(
                try KdebugFixtures.synth().records, .dyldLaunchExecutable, .end, pair: 0x41)
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            #expect(phases.totalPremainMs == nil)
            #expect(phases.mainMs == nil)
            #expect(phases.processCreationMs == 2.0)
            #expect(phases.closureBuildMs == nil)
            #expect(
                phases.warnings == [
                    "LAUNCH_EXECUTABLE START at +2.500 ms (pair id 0x41) has no END: the launch interval is unknown.",
                    "No LAUNCH_EXECUTABLE END: the trace stops before main (the app crashed, was prewarmed, or events "
                        + "were lost), so total pre-main is unknown and phases seen so far may be partial.",
                ])
        }

        @Test func countsOnlyIntervalsBeforeMain() throws {
            var records = try KdebugFixtures.synth().records
            // A dlopen after main: its MAP_IMAGE, APPLY_FIXUPS and initializer (in an image with no UUID map)
            // belong to no launch phase and raise no warning.
            let after = KdebugFixtures.synthExec + 700_000
            records += [
                KdebugRecord(
                    timestamp: after + 100, debugID: .init(rawValue: 0x1F07_0001), args: [0x93, 0xDEAD_0000],
                    threadID: 0x11000),
                KdebugRecord(
                    timestamp: after + 200, debugID: .init(rawValue: 0x1F07_0002), args: [0x93], threadID: 0x11000),
                KdebugRecord(timestamp: after, debugID: .init(rawValue: 0x1F07_0009), args: [0x90], threadID: 0x11000),
                KdebugRecord(
                    timestamp: after + 9, debugID: .init(rawValue: 0x1F07_000A), args: [0x90], threadID: 0x11000),
                KdebugRecord(
                    timestamp: after + 10, debugID: .init(rawValue: 0x1F07_000D), args: [0x91], threadID: 0x11000),
                KdebugRecord(
                    timestamp: after + 99, debugID: .init(rawValue: 0x1F07_0015), args: [0x92], threadID: 0x11000),
            ]
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            #expect(KdebugFixtures.ns(phases.dylibLoadingMs) == 6_000_042)
            #expect(phases.rebaseBindingMs == 4.0)
            #expect(phases.closureBuildMs == nil)
            #expect(phases.timeline.count == 9)
            #expect(KdebugFixtures.ns(phases.initializerMs) == 12_500_042)
            #expect(phases.initializersByImage.count == 3)
            #expect(phases.warnings == [])
        }

        /// TRACE_LOST_EVENTS comes from whichever thread noticed, here the kernel's thread 0.
        @Test func warnsAboutLostEvents() throws {
            var trace = try KdebugFixtures.synth()
            trace.records += [
                KdebugRecord(timestamp: KdebugFixtures.synthExec + 240_000, debugID: .traceLostEvents, threadID: 0),
                KdebugRecord(timestamp: KdebugFixtures.synthExec - 24_000, debugID: .traceLostEvents, threadID: 0),
            ]
            let phases = try #require(DyldLaunchPhases(trace: trace, timebase: .iPhone))
            #expect(phases.processName == "Demo")
            #expect(phases.rebaseBindingMs == 4.0)
            #expect(
                phases.warnings == [
                    "The kernel lost events at +10.000 ms (TRACE_LOST_EVENTS): any phase may be missing intervals."
                ])
        }

        @Test func measuresAClosureBuild() throws {
            var records = try KdebugFixtures.synth().records
            let index = records.firstIndex { $0.debugID.eventID == .dyldApplyFixups }!
            records.insert(
                contentsOf: [
                    KdebugRecord(
                        timestamp: KdebugFixtures.synthExec + 222_000, debugID: .init(rawValue: 0x1F07_0015),
                        args: [0x60],
                        threadID: KdebugFixtures.synthThread),
                    KdebugRecord(
                        timestamp: KdebugFixtures.synthExec + 225_000, debugID: .init(rawValue: 0x1F07_0016),
                        args: [0x60, 0, 0, 1],
                        threadID: KdebugFixtures.synthThread),
                ], at: index)
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            #expect(phases.closureBuildMs == 0.125)
            #expect(phases.timeline.map(\.kind).contains(.buildClosure))
            #expect(phases.warnings == [])
        }
    }
}
