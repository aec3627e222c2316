import Foundation
import Testing

@testable import LaunchBench

extension KdebugTests {
    /// Page faults from `MACH_vmfault` (0x01300008): START and END paired per thread, the END's arg4 the type
    /// (xnu `vm_fault.c:6738-6743`), counted for the app process from its exec to its first frame.
    @Suite struct PageInsTests {
        static let exec = KdebugFixtures.synthExec
        static let thread = KdebugFixtures.synthThread
        /// 24 000 ticks = 1 ms on the synth's timebase.
        static let tick1ms: UInt64 = 24_000
        static let demoText: UInt64 = 0x1_00AC_0000
        static let frameworkB: UInt64 = 0x1_011B_0000

        /// One fault's two records: START at `at` ms after exec, END `ticks` later.
        static func fault(
            at ms: Double, address: UInt64, type: UInt64, ticks: UInt64 = 2400, thread: UInt64 = thread,
            result: UInt64 = 0
        ) -> [KdebugRecord] {
            let start = UInt64(Double(exec) + ms * Double(tick1ms))
            return [
                KdebugRecord(
                    timestamp: start, debugID: KdebugDebugID(rawValue: 0x0130_0009),
                    args: [address >> 32, address, 0, 0], threadID: thread),
                KdebugRecord(
                    timestamp: start + ticks, debugID: KdebugDebugID(rawValue: 0x0130_000A),
                    args: [address >> 32, address, result, type], threadID: thread),
            ]
        }

        /// UIKit's Initial Frame Rendering BEGIN (0x2B870030), which the first frame's END must follow.
        static func frameBegin(at ms: Double) -> KdebugRecord {
            KdebugRecord(
                timestamp: exec + UInt64(ms * Double(tick1ms)), debugID: KdebugDebugID(rawValue: 0x2B87_0030),
                threadID: thread)
        }

        static func firstFrame(at ms: Double) -> KdebugRecord {
            KdebugRecord(
                timestamp: exec + UInt64(ms * Double(tick1ms)),
                debugID: KdebugDebugID(rawValue: KdebugDebugID.initialFrameRendering.rawValue | 2), threadID: thread)
        }

        @Test func pairsStartAndEndPerThreadWithTheTypeFromTheEnd() {
            let records =
                Self.fault(at: 1, address: 0x4000, type: 7) + Self.fault(at: 1.01, address: 0x8000, type: 1, thread: 9)
            var pairing = VMFaultPairing()
            let faults = records.sorted { $0.timestamp < $1.timestamp }.compactMap { pairing.consume($0) }
            #expect(faults.map(\.address) == [0x4000, 0x8000])
            #expect(faults.map(\.type) == [.pageInFile, .zeroFill])
            #expect(faults.map(\.ticks) == [2400, 2400])
            #expect(faults.map(\.threadID) == [Self.thread, 9])
            // An END without its START pairs with nothing.
            var fresh = VMFaultPairing()
            #expect(fresh.consume(records[1]) == nil)
        }

        /// Only DBG_PAGEINV_FAULT (7) is a page-in; cache hits, zero fill, COW (and COR), compressor (and its
        /// swap-in) are counted apart; faults of other threads, before the exec, after the first frame or
        /// failed are not the launch's.
        @Test func countsTheAppsFaultsFromExecToFirstFrameByType() throws {
            var records = try KdebugFixtures.synth().records
            records += Self.fault(at: 3, address: Self.demoText, type: 7, ticks: 4800)  // 0.2 ms
            records += Self.fault(at: 4, address: Self.demoText + 0x4000, type: 7, ticks: 2400)  // 0.1 ms
            records += Self.fault(at: 5, address: Self.frameworkB + 0x8000, type: 7, ticks: 2400)
            records += Self.fault(at: 6, address: 0x2_8000_0000, type: 1)  // zero fill
            records += Self.fault(at: 7, address: Self.demoText + 0x8_0000, type: 3)  // COW
            records += Self.fault(at: 8, address: Self.demoText + 0x8_4000, type: 0x0B)  // COR
            records += Self.fault(at: 9, address: 0x2_8000_4000, type: 9)  // compressor
            records += Self.fault(at: 10, address: 0x2_8000_8000, type: 0x0A)  // compressor swap-in
            records += Self.fault(at: 11, address: Self.demoText + 0xC000, type: 4)  // cache hit
            records += Self.fault(at: 12, address: Self.demoText + 0x1_0000, type: 7, result: 5)  // failed
            records += Self.fault(at: 13, address: Self.demoText, type: 7, thread: 0x999)  // another process
            records += Self.fault(at: -1, address: Self.demoText, type: 7)  // before the exec
            records += [Self.frameBegin(at: 39), Self.firstFrame(at: 40)]
            records += Self.fault(at: 41, address: Self.demoText, type: 7)  // after the first frame
            let phases = try #require(
                DyldLaunchPhases(records: records, timebase: .iPhone, selection: .pid(4243)))
            let faults = try #require(phases.pageIns)
            #expect(faults.pageIns == 3)
            #expect(KdebugFixtures.ns(faults.pageInMs) == 400_000)
            #expect(faults.zeroFill == 1)
            #expect(faults.copyOnWrite == 2)
            #expect(faults.compressor == 2)
            #expect(faults.cacheHits == 1)
            #expect(
                faults.byImage.map { "\($0.image) \($0.pageIns) \(KdebugFixtures.ns($0.ms) ?? -1)" } == [
                    "\(KdebugFixtures.mainExecutable) 2 300000", "\(KdebugFixtures.imageB) 1 100000",
                ])
            #expect(faults.pageInEndsMs.count == 3)
        }

        /// The sample gets the counts in its metric columns, 0 for a type that did not occur; a trace without
        /// any fault (a session without `--page-faults`) leaves the columns empty, never 0.
        @Test func fillsTheSampleColumns() throws {
            var records = try KdebugFixtures.synth().records
            records += Self.fault(at: 3, address: Self.demoText, type: 7, ticks: 4800)
            records += Self.fault(at: 6, address: 0x2_8000_0000, type: 1)
            let phases = try #require(DyldLaunchPhases(records: records, timebase: .iPhone))
            var sample = Sample(
                runID: "r", deviceUDID: "u", deviceName: "n", productType: "iPhone15,2", osVersion: "17.5",
                appBundleID: "b", appVersion: "1", iteration: 1, kind: .cold, status: .ok, startedAt: Date())
            KdebugSampling.applyAfterMain(
                KdebugLaunchRecorder.Capture(phases: phases, lostEvents: 0, warnings: []), to: &sample)
            #expect(sample[.pageIns] == 1)
            #expect(KdebugFixtures.ns(sample[.pageInMs]) == 200_000)
            #expect(sample[.zeroFillFaults] == 1)
            #expect(sample[.cowFaults] == 0)
            #expect(sample[.compressorFaults] == 0)

            let untraced = try #require(DyldLaunchPhases(records: KdebugFixtures.synth().records, timebase: .iPhone))
            #expect(untraced.pageIns == nil)
            var plain = sample
            plain.metrics = [:]
            plain.pageInsByImage = nil
            KdebugSampling.applyAfterMain(
                KdebugLaunchRecorder.Capture(phases: untraced, lostEvents: 0, warnings: []), to: &plain)
            #expect(Metric.faults.allSatisfy { plain[$0] == nil } && plain.pageInsByImage == nil)
        }

        /// `launchbench parse` of a raw capture taken with `--page-faults` gives the same counts; without
        /// faults in it the columns are empty.
        @Test func parseGivesThePageInsOfARawCapture() throws {
            let synth = try KdebugFixtures.synth()
            var records = synth.records
            records += Self.fault(at: 3, address: Self.demoText, type: 7, ticks: 4800)
            records += Self.fault(at: 6, address: 0x2_8000_0000, type: 1)
            records += Self.fault(at: 7, address: Self.demoText + 0x8_0000, type: 3)
            let launch = try #require(
                KdebugLaunches.find(in: KdebugTrace(header: synth.header, records: records), timebase: .iPhone).first)
            var values: [Metric: Double] = [:]
            for (metric, value) in launch.metrics { values[metric] = value }
            #expect(values[.pageIns] == 1 && values[.zeroFillFaults] == 1 && values[.cowFaults] == 1)
            #expect(values[.compressorFaults] == 0 && KdebugFixtures.ns(values[.pageInMs]) == 200_000)
            let plain = try #require(KdebugLaunches.find(in: synth, timebase: .iPhone).first)
            #expect(plain.metrics.filter { Metric.faults.contains($0.0) }.allSatisfy { $0.1 == nil })
        }

        /// An image's range ends where the next one starts; past the last, only within the span.
        @Test func attributesAnAddressToTheImageBelowIt() {
            let starts: [UInt64] = [0x1000_0000, 0x2000_0000]
            #expect(LaunchPageIns.image(containing: 0x0FFF_FFFF, starts: starts) == nil)
            #expect(LaunchPageIns.image(containing: 0x1000_0000, starts: starts) == 0x1000_0000)
            #expect(LaunchPageIns.image(containing: 0x1FFF_FFFF, starts: starts) == 0x1000_0000)
            #expect(LaunchPageIns.image(containing: 0x2000_4000, starts: starts) == 0x2000_0000)
            #expect(LaunchPageIns.image(containing: 0x2000_0000 + LaunchPageIns.lastImageSpan, starts: starts) == nil)
        }

        /// A launch that faults 100,000 times keeps its faults paired (not as records) and only the first
        /// ``KdebugLaunchRecorder/rawFaultRecordLimit`` fault records for the raw file; the next launch's mark
        /// lets all of it go, so two such launches hold what one does. Counted in records and bytes.
        @Test func aLaunchWithManyFaultsHoldsALaunchsWorth() async throws {
            let synth = try KdebugFixtures.synth().records
            func launch(_ faults: Int) -> [UInt8] {
                var records = synth
                records.reserveCapacity(synth.count + faults * 2 + 1)
                for index in 0..<faults {
                    let start = Self.exec + 30 * Self.tick1ms + UInt64(index) * 10
                    let address = Self.demoText + UInt64(index % 4096) * 0x4000
                    records.append(
                        KdebugRecord(
                            timestamp: start, debugID: KdebugDebugID(rawValue: 0x0130_0009),
                            args: [address >> 32, address], threadID: Self.thread))
                    records.append(
                        KdebugRecord(
                            timestamp: start + 5, debugID: KdebugDebugID(rawValue: 0x0130_000A),
                            args: [address >> 32, address, 0, 7], threadID: Self.thread))
                }
                records.append(Self.firstFrame(at: 100))
                return records.flatMap(\.bytes)
            }
            let stream = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            let recorder = KdebugLaunchRecorder(feed: KdebugFeed(timebase: .iPhone, chunks: stream.stream) {})
            let limit = KdebugLaunchRecorder.rawFaultRecordLimit
            var held: [(records: Int, faults: Int, bytes: Int)] = []
            for _ in 0..<2 {
                await recorder.mark()
                stream.continuation.yield(launch(100_000))
                let capture = await recorder.capture(executable: "Demo", timeout: .seconds(30))
                #expect(capture.phases?.pageIns?.pageIns == 100_000)
                #expect(capture.raw.count <= 8192 + (synth.count + 1 + limit) * KdebugRecord.size)
                #expect(capture.warnings.contains { $0.contains("first \(limit) of the launch's 200000") })
                held.append(await recorder.retained())
            }
            #expect(held[0].records == synth.count + 1 + limit)
            #expect(held[0].faults == 100_000)
            #expect(held[1].records == held[0].records && held[1].faults == held[0].faults)
            #expect(held[1].bytes == held[0].bytes)
            // The paired faults cost less than half their records would.
            #expect(held[0].faults * MemoryLayout<VMFault>.stride < 100_000 * 2 * KdebugRecord.size / 2)
            stream.continuation.finish()
        }
    }
}
