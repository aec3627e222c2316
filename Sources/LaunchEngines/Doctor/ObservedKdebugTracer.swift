import Foundation
import LaunchBench

/// The run's own kdebug tracer, watched for `launchbench doctor`: what the session's start threw, the timebase
/// `machTimeInfo` gave, the first message after `start`, and each chunk's size and arrival. It passes every chunk
/// on unchanged, so the launch is measured exactly as a run measures it.
package struct ObservedKdebugTracer: KdebugTracing {
    private let tracer: any KdebugTracing
    /// What was seen; read it after the run.
    package let observation = KdebugObservation()

    /// Watches `tracer`.
    package init(_ tracer: any KdebugTracing) {
        self.tracer = tracer
    }

    package func startTrace(on device: DeviceInfo) async throws -> KdebugFeed {
        let feed: KdebugFeed
        do {
            feed = try await tracer.startTrace(on: device)
        } catch {
            await observation.failed(error)
            throw error
        }
        await observation.started(timebase: feed.timebase)
        let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let upstream = feed.chunks
        let observation = observation
        let relay = Task {
            do {
                for try await chunk in upstream {
                    await observation.received(chunk, at: .now)
                    continuation.yield(chunk)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in relay.cancel() }
        return KdebugFeed(
            timebase: feed.timebase, chunks: chunks, processControl: feed.processControl, stop: feed.stop)
    }
}

/// What `ObservedKdebugTracer` saw of one device's session.
package actor KdebugObservation {
    /// What `startTrace` threw, if it did.
    package private(set) var startError: (any Error)?
    /// The timebase from the device's `machTimeInfo` (`nil` until the session ran).
    package private(set) var timebase: MachTimebase?
    /// The RAW_VERSION2 header the session's first data message carried (`nil`: none, or not a header).
    package private(set) var header: KdebugHeader?
    /// Whether the first message after `start` was a header (`nil` before any arrived).
    package private(set) var firstMessageWasHeader: Bool?
    /// Data messages received, their bytes and the kdebug records in them.
    package private(set) var chunks = 0
    package private(set) var bytes = 0
    package private(set) var records = 0
    /// Chunks the decoder could not read.
    package private(set) var unreadableChunks = 0
    /// Per chunk with records: when it arrived and its latest record's device timestamp.
    private var arrivals: [(at: ContinuousClock.Instant, ticks: UInt64)] = []
    private var decoder = KdebugChunkDecoder()

    init() {}

    func failed(_ error: any Error) { startError = error }

    func started(timebase: MachTimebase) { self.timebase = timebase }

    func received(_ chunk: [UInt8], at instant: ContinuousClock.Instant) {
        chunks += 1
        bytes += chunk.count
        guard let decoded = try? decoder.decode(chunk: chunk) else {
            unreadableChunks += 1
            if firstMessageWasHeader == nil { firstMessageWasHeader = false }
            return
        }
        if firstMessageWasHeader == nil {
            firstMessageWasHeader = decoder.header != nil
            header = decoder.header
        }
        records += decoded.count
        if let latest = decoded.map(\.timestamp).max() { arrivals.append((instant, latest)) }
    }

    /// How much later than the quickest chunk the slowest one arrived, in ms: each chunk's arrival less its
    /// latest record's device time, against the smallest such difference (the two clocks' offset is unknown,
    /// so the quickest chunk is the reference; a phone flushes its buffer every ~100 ms). `nil` with fewer
    /// than two chunks of records or no timebase.
    package var worstLagMs: Double? {
        guard arrivals.count >= 2, let timebase, let first = arrivals.first else { return nil }
        let offsets = arrivals.map { arrival -> Double in
            let host = (arrival.at - first.at).totalSeconds * 1000
            return host - timebase.milliseconds(from: first.ticks, to: arrival.ticks)
        }
        guard let least = offsets.min(), let most = offsets.max() else { return nil }
        return most - least
    }
}
