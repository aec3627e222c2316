import Foundation
import LaunchBench

/// Keeps a device's kernel trace running for the whole run, as `Pymobiledevice3Engine` keeps its sidecar: a
/// helper that ends on its own (killed, crashed) is replaced by a new one, and its chunks continue the same feed,
/// so the launches after it still get their phases. The launch during the gap has none, and says so
/// (`KdebugLaunchRecorder`: no exec in the trace). After ``limit`` restarts, or when a restart fails, the feed ends
/// with an error that names how often the helper died; the device's launches from then on say the trace ended.
enum KdebugTapRestarts {
    /// Restarts allowed per device and run: a helper that keeps dying is a fault to report, not to hide.
    static let limit = 3

    /// The feed of `first`, continued by `restart()`'s sessions whenever the current one ends unasked.
    static func supervise(
        _ first: KdebugFeed, udid: String, limit: Int = limit,
        restart: @escaping @Sendable () async throws -> KdebugFeed
    ) -> KdebugFeed {
        let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream(bufferingPolicy: .unbounded)
        let state = Locked(State(stopCurrent: first.stop))
        let control = ProcessControlRelay(first.processControl)
        let pump = Task {
            var feed = first
            var restarts = 0
            var isRestart = false
            while true {
                var ending = "it exited"
                do {
                    var headerPending = isRestart
                    for try await chunk in feed.chunks {
                        continuation.yield(headerPending ? withoutHeader(chunk, pending: &headerPending) : chunk)
                    }
                } catch {
                    if let tap = error as? KdebugTapError, tap.recursOnRestart {
                        continuation.finish(throwing: tap)  // a new helper would meet it again: say it as it is
                        return
                    }
                    ending = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
                }
                if state.withLock({ $0.stopped }) {
                    continuation.finish()
                    return
                }
                guard restarts < limit else {
                    continuation.finish(
                        throwing: KdebugTapError.lost(
                            udid: udid,
                            message: "the kdebug helper died \(restarts + 1) times (last: \(ending)); it is not "
                                + "restarted again. Its logs (kdebug-tap*.log) say why"))
                    return
                }
                restarts += 1
                do {
                    let next = try await restart()
                    let stopped = state.withLock { state -> Bool in
                        if !state.stopped { state.stopCurrent = next.stop }
                        return state.stopped
                    }
                    if stopped {
                        await next.stop()
                        continuation.finish()
                        return
                    }
                    feed = next
                    control.replace(with: next.processControl)
                    isRestart = true
                } catch {
                    continuation.finish(
                        throwing: KdebugTapError.lost(
                            udid: udid,
                            message: "the kdebug helper died (\(ending)) and could not be restarted: "
                                + ((error as? any LocalizedError)?.errorDescription ?? String(describing: error))))
                    return
                }
            }
        }
        return KdebugFeed(timebase: first.timebase, chunks: chunks, processControl: control) {
            let stop = state.withLock { state -> @Sendable () async -> Void in
                state.stopped = true
                return state.stopCurrent
            }
            await stop()
            pump.cancel()  // a restart under way stops its helper and gives up
            _ = await pump.result
        }
    }

    private struct State {
        var stopCurrent: @Sendable () async -> Void
        var stopped = false
    }

    /// A restarted session begins with its own RAW_VERSION2 header, which the reader took from the first
    /// session (it reads records after one header): only its records go on. Chunks before it (bplists,
    /// stackshots) pass unchanged.
    static func withoutHeader(_ chunk: [UInt8], pending: inout Bool) -> [UInt8] {
        if chunk.starts(with: Array("bplist".utf8)) || chunk.starts(with: KdebugChunkDecoder.stackshotMagic) {
            return chunk
        }
        pending = false
        guard KdebugHeader.starts(chunk), let decoded = try? KdebugHeader.decode(chunk) else { return chunk }
        return Array(chunk[decoded.recordsOffset...])
    }
}
