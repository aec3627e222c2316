import LaunchBench
import Testing

extension KdebugTests {
    @Suite("Raw kdebug files")
    struct RawKdebugWriterTests {
        /// The synth fixture was written by the research prototype (Python), not by this writer: the same
        /// header, thread map and records give the same bytes, padding included.
        @Test func writesWhatKperfWrites() throws {
            let trace = try KdebugFixtures.synth()
            let bytes = RawKdebugWriter.bytes(header: trace.header, records: trace.records, timebase: .iPhone)
            #expect(bytes == (try KdebugFixtures.bytes("synth-launch.kdebug")))
        }

        /// Without the device's header: an empty thread map and the timebase's tick frequency (24 MHz).
        @Test func writesAHeaderOfItsOwn() throws {
            let records = try KdebugFixtures.synth().records
            let bytes = RawKdebugWriter.bytes(header: nil, records: records, timebase: .iPhone)
            #expect(bytes.count == 4096 + 64 * records.count)
            let read = try KdebugFile.read(bytes).trace
            #expect(read.header?.tickFrequency == 24_000_000)
            #expect(read.header?.threads == [])
            #expect(read.records == records)
        }

        /// The recorder keeps each launch's records since its mark, with the device's header, as a file.
        @Test func theRecorderKeepsTheLaunchAsAFile() async throws {
            let file = try KdebugFixtures.bytes("synth-launch.kdebug")
            let stream = AsyncThrowingStream<[UInt8], any Error> { continuation in
                continuation.yield(file)
                continuation.finish()
            }
            let recorder = KdebugLaunchRecorder(feed: KdebugFeed(timebase: .iPhone, chunks: stream) {})
            let capture = await recorder.capture(executable: "Demo", timeout: .seconds(5))
            #expect(capture.raw == file)
            let missing = await recorder.capture(executable: "Other", timeout: .milliseconds(50))
            #expect(missing.phases == nil)
            #expect(missing.raw == file, "kept even when no launch is found")
            await recorder.mark()
            let empty = await recorder.capture(executable: "Other", timeout: .milliseconds(50))
            #expect(empty.raw.count == 4096, "the header alone after mark()")
        }
    }
}
