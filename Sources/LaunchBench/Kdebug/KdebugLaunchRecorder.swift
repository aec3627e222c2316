import Foundation

/// One device's kernel-trace session for a whole run (armed once, not per launch), cut into launches:
/// ``mark()`` before each launch drops what came before, ``capture(executable:timeout:)`` after it waits for
/// that launch's exec and dyld's `LAUNCH_EXECUTABLE` end, then measures it. Only the current launch's records
/// are held, so memory stays flat however long the run.
package actor KdebugLaunchRecorder {
    /// What the trace gave for one launch.
    package struct Capture: Sendable {
        /// The launch's phases; `nil` when no exec of the app appeared in time, or events were lost.
        package var phases: DyldLaunchPhases?
        /// Events the device reported dropping during the launch (`TRACE_LOST_EVENTS`).
        package var lostEvents: Int
        /// Why there are no phases, or what is doubtful about them, in words.
        package var warnings: [String]
        /// The launch's records since ``mark()`` as a RAW_VERSION2 file (the device's header and thread map
        /// first), kept whether or not phases were found: what a bug report needs.
        package var raw: [UInt8] = []
        /// The newest exec of the app since its previous launch that was not a launch of launchbench's.
        package var prelaunch: Prelaunch? = nil
    }

    /// The device's mach timebase.
    package nonisolated let timebase: MachTimebase
    private let stopFeed: @Sendable () async -> Void
    private var decoder = KdebugChunkDecoder()
    private var records: [KdebugRecord] = []
    /// The launch's page faults, paired as they arrive (a third of their records' size): a cold launch
    /// faults thousands of times, so the records themselves are kept only up to ``rawFaultRecordLimit``.
    private var faults: [VMFault] = []
    private var pairing = VMFaultPairing()
    private var faultRecords = 0
    private var lostEvents = 0
    private var failure: String?
    private var ended = false
    /// Prelaunches seen after the previous launch, found when the trace was marked for the next.
    private var pending: [Prelaunches.Seen] = []
    /// Execs in `records` that are accounted for: launches, and prelaunches already given to a launch.
    private var accounted: Set<Prelaunches.ExecKey> = []
    /// The pid of the launch since the mark, when its launcher said (process control).
    private var launchPid: Int?
    /// Who waits for the next chunk (``nextChunk(until:)``), by ticket.
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextTicket = 0

    /// Starts reading `feed`.
    package init(feed: KdebugFeed) {
        timebase = feed.timebase
        stopFeed = feed.stop
        let chunks = feed.chunks
        Task { await self.read(chunks) }
    }

    private func read(_ chunks: AsyncThrowingStream<[UInt8], any Error>) async {
        do {
            for try await chunk in chunks {
                take(chunk)
                wakeWaiting()
            }
            ended = true
        } catch {
            failure = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
            ended = true
        }
        wakeWaiting()
    }

    /// Returns when the next chunk has been taken, the session ends, or `deadline` passes (when it had ended
    /// before, at the deadline: no chunk will come): a launch's events are looked at as soon as they arrive (a poll
    /// put up to its period between one launch and the next).
    package func nextChunk(until deadline: ContinuousClock.Instant) async {
        guard deadline > .now else { return }
        if ended {
            try? await Task.sleep(until: deadline)
            return
        }
        nextTicket += 1
        let ticket = nextTicket
        let timer = Task { [weak self] in
            do { try await Task.sleep(until: deadline) } catch { return }
            await self?.wake(ticket)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { waiting[ticket] = $0 }
        } onCancel: {
            timer.cancel()
            Task { [weak self] in await self?.wake(ticket) }
        }
        timer.cancel()
    }

    private func wake(_ ticket: Int) {
        waiting.removeValue(forKey: ticket)?.resume()
    }

    private func wakeWaiting() {
        let woken = waiting.values
        waiting.removeAll()
        for continuation in woken { continuation.resume() }
    }

    private func take(_ chunk: [UInt8]) {
        guard let decoded = try? decoder.decode(chunk: chunk) else {
            failure = "the device sent a malformed kdebug header"
            return
        }
        for record in decoded {
            switch record.debugID.eventID {
            case .traceLostEvents:
                lostEvents += 1
            case .machVMFault:
                if let fault = pairing.consume(record) { faults.append(fault) }
                faultRecords += 1
                // The raw file keeps the first faults' records, so it stays bounded whatever the launch does.
                guard faultRecords <= Self.rawFaultRecordLimit else { continue }
            default:
                break
            }
            records.append(record)
        }
    }

    /// How many `MACH_vmfault` records a launch's raw trace keeps (16,384 records: 1 MiB): a launch's own
    /// events are a few thousand records, so its raw file stays under about 1.5 MiB however often it faults.
    package static let rawFaultRecordLimit = 16_384

    /// What the recorder holds for the current launch: records (raw and for the phases) and paired faults.
    package func retained() -> (records: Int, faults: Int, bytes: Int) {
        (records.count, faults.count, records.count * KdebugRecord.size + faults.count * MemoryLayout<VMFault>.stride)
    }

    /// Forgets everything before the launch about to start; with `executable`, first keeps the execs of it that
    /// came after the previous launch (the phone's prelaunches) for the next capture.
    package func mark(executable: String? = nil) {
        if let executable {
            pending += Prelaunches.find(
                executable, in: records, threads: decoder.header?.threads ?? [], excluding: accounted)
        }
        records.removeAll(keepingCapacity: true)
        accounted.removeAll()
        launchPid = nil
        // Not kept: one launch's worth of faults must not stay reserved for the next.
        faults.removeAll()
        pairing = VMFaultPairing()
        faultRecords = 0
        lostEvents = 0
    }

    /// The launch of `executable` since the last ``mark()``: waits until dyld's `LAUNCH_EXECUTABLE` ends in a
    /// process exec'd under that name, or `timeout` passes, or the session ends.
    package func capture(executable: String, timeout: Duration) async -> Capture {
        var capture = await waitForLaunch(of: executable, timeout: timeout)
        capture.raw = RawKdebugWriter.bytes(header: decoder.header, records: records, timebase: timebase)
        let launch = exec(of: executable)
        let seen = pending + prelaunchesBefore(launch, of: executable)
        capture.prelaunch = Prelaunches.label(seen, launch: launch, timebase: timebase)
        accounted.formUnion(seen.map { Prelaunches.ExecKey($0.exec) })
        if let launch { accounted.insert(Prelaunches.ExecKey(launch)) }
        pending = []
        if faultRecords > Self.rawFaultRecordLimit {
            capture.warnings.append(
                "kdebug: the raw trace keeps the first \(Self.rawFaultRecordLimit) of the launch's "
                    + "\(faultRecords) page-fault records; the counts include them all")
        }
        return capture
    }

    /// The launch since the mark started as `pid`: only an exec in that process is the launch.
    package func launched(pid: Int) {
        launchPid = pid
    }

    /// The execs of `executable` since the last mark before `launch` (all of them without one): prelaunches whose
    /// events reached the trace only after the mark.
    private func prelaunchesBefore(_ launch: KdebugRecord?, of executable: String) -> [Prelaunches.Seen] {
        Prelaunches.find(executable, in: records, threads: decoder.header?.threads ?? [], excluding: accounted)
            .filter { seen in launch.map { seen.exec.timestamp < $0.timestamp } ?? true }
    }

    private func waitForLaunch(of executable: String, timeout: Duration) async -> Capture {
        let deadline = ContinuousClock.now + timeout
        while true {
            if launchCompleted(of: executable) { return measure(executable: executable) }
            if ended || ContinuousClock.now >= deadline { break }
            await nextChunk(until: deadline)
        }
        var warnings: [String] = []
        if let failure {
            warnings.append("kdebug: the trace session ended: \(failure)")
        } else if exec(of: executable) != nil {
            var capture = measure(executable: executable)
            capture.warnings.append(
                "kdebug: no LAUNCH_EXECUTABLE end within \(DecimalText.fixed(timeout.totalSeconds, maxFractionDigits: 1)) s of the launch (it died before main, "
                    + "or events were lost)")
            return capture
        } else {
            warnings.append(
                "kdebug: no exec of \(executable) in the trace within \(DecimalText.fixed(timeout.totalSeconds, maxFractionDigits: 1)) s of the launch"
            )
        }
        return Capture(phases: nil, lostEvents: lostEvents, warnings: warnings)
    }

    /// Counts one launch checked against dyld's statistics: the largest difference over the phases both time
    /// in ms, `nil` when kdebug gave no phases for it; `skipped` names the phases only dyld timed.
    package func tally(_ largestDifferenceMs: Double?, skipped: [String] = []) {
        checked += 1
        for name in skipped where !self.skipped.contains(name) { self.skipped.append(name) }
        if largestDifferenceMs == nil && !skipped.isEmpty { nothingComparable += 1 }
        if let largestDifferenceMs {
            compared += 1
            if largestDifferenceMs <= 0.1 { agreed += 1 }
            largest = max(largest, largestDifferenceMs)
        }
    }

    /// The device's note on the check, `nil` before any launch was checked.
    package func crossCheckSummary() -> String? {
        guard checked > 0 else { return nil }
        let withoutPhases = checked - compared - nothingComparable
        if compared == 0 && nothingComparable > 0 {
            return "kdebug cross-check: none of \(checked) launches could be compared: kdebug does not time "
                + "\(skipped.joined(separator: ", ")) on this device's dyld"
                + (withoutPhases > 0 ? "; \(withoutPhases) without kdebug phases" : "") + "."
        }
        return "kdebug cross-check: \(agreed) of \(checked) launches agree with dyld's printed statistics within "
            + "0.1 ms on every phase both time (largest difference \(DecimalText.fixed(largest, maxFractionDigits: 3)) ms"
            + (withoutPhases > 0 ? "; \(withoutPhases) without kdebug phases" : "") + ")"
            + (skipped.isEmpty
                ? "."
                : "; skipped: \(skipped.joined(separator: ", ")), which kdebug does not time on this device's dyld.")
    }

    private var checked = 0
    private var compared = 0
    private var agreed = 0
    private var largest = 0.0
    private var skipped: [String] = []
    private var nothingComparable = 0

    private var stopped = false

    /// Ends the session (the device's kdebug enricher, after its last launch); a second call does nothing.
    package func stop() async {
        guard !stopped else { return }
        stopped = true
        await stopFeed()
    }

    private func measure(executable: String) -> Capture {
        // A prelaunch's process is not the launch: its records are left out.
        let others = prelaunchesBefore(exec(of: executable), of: executable).reduce(into: Set<UInt64>()) {
            $0.formUnion($1.threads)
        }
        let phases = DyldLaunchPhases(
            records: others.isEmpty ? records : records.filter { !others.contains($0.threadID) }, timebase: timebase,
            selection: .executable(executable),
            threads: decoder.header?.threads ?? [], faults: faults)
        // Lost events make every phase doubtful: none is given, and the one warning says why.
        guard lostEvents == 0 else {
            return Capture(
                phases: nil, lostEvents: lostEvents,
                warnings: ["kdebug: the device dropped events \(lostEvents) time(s) during this launch"])
        }
        return Capture(phases: phases, lostEvents: 0, warnings: phases?.warnings.map { "kdebug: " + $0 } ?? [])
    }

    /// The newest exec under `executable`'s name since the last mark: its record (exec records the name under
    /// which it ran, cut to 31 bytes or fewer, so a prefix of the executable's name matches). An earlier exec in
    /// the same pid (launchd's `xpcproxy`) is not the launch, nor is an earlier exec of the app (the phone's
    /// prelaunch, when its events reached the trace after the mark), nor one in another pid than the launcher's.
    private func exec(of executable: String) -> KdebugRecord? {
        var lastExec: [UInt64: KdebugRecord] = [:]
        var newest: KdebugRecord?
        for record in records {
            switch record.debugID.eventID {
            case .traceDataExec:
                lastExec[record.threadID] = record
            case .traceStringExec:
                let name = String(decoding: record.argumentBytes.prefix { $0 != 0 }, as: UTF8.self)
                if DyldLaunchSelection.execName(name, matches: executable), let exec = lastExec[record.threadID],
                    exec.timestamp >= newest?.timestamp ?? 0,
                    launchPid.map({ Int(truncatingIfNeeded: exec.arg1) == $0 }) ?? true
                {
                    newest = exec
                }
            default:
                break
            }
        }
        return newest
    }

    /// How far the launch of `executable` since the last ``mark()`` got: whether dyld reached main
    /// (`LAUNCH_EXECUTABLE` END in the app's exec) and whether the first frame came: UIKit's Initial Frame
    /// Rendering END (0x31CA0006) on the thread that ran main after its BEGIN (0x2B870030), as
    /// `UIKitFirstFrame` reads it. An END before the BEGIN is a stray and does not end the launch; without a
    /// BEGIN the launch ends `--grace` after main, since an END then cannot be told from a stray.
    package func progress(of executable: String) -> (reachedMain: Bool, firstFrame: Bool) {
        guard let exec = exec(of: executable) else { return (false, false) }
        var main: UInt64?
        // The stream is in arrival order, not strictly by time across CPUs.
        for record in records where record.timestamp >= exec.timestamp {
            let id = record.debugID
            if id.eventID == .dyldLaunchExecutable, id.function == .end, record.threadID == exec.threadID {
                main = min(main ?? .max, record.timestamp)
            }
        }
        guard let main else { return (false, false) }
        let thread = records.enumerated().filter { $0.element.threadID == exec.threadID }.sorted {
            ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset)
        }.map(\.element)
        let frame = UIKitFirstFrame(thread, thread: exec.threadID, main: main)
        return (true, frame.source == .uikitAnchored)
    }

    /// Whether dyld's `LAUNCH_EXECUTABLE` ended in the app's exec (on its thread, after it).
    private func launchCompleted(of executable: String) -> Bool {
        guard let exec = exec(of: executable) else { return false }
        return records.contains {
            $0.debugID.eventID == .dyldLaunchExecutable && $0.debugID.function == .end
                && $0.threadID == exec.threadID && $0.timestamp >= exec.timestamp
        }
    }
}
