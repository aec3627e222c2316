import NIOCore

/// One accepted TCP connection inside the tunnel, the device being the server: a small but correct
/// TCP (RFC 9293) for one peer that never reorders, where loss and duplicates still happen (the host's
/// stack retransmits on its own timers, and a loaded CI box delays our ACKs).
///
/// - Receiving: in-order data is delivered at once and ACKed at once; overlaps are trimmed and duplicates
///   re-ACKed; a segment beyond a gap is dropped with a duplicate ACK (the peer resends it).
/// - Sending: segments up to the peer's MSS within the peer's window; unacknowledged data is resent
///   from the oldest byte when the retransmission timer fires (exponential back-off, then RST).
/// - Closing: FIN both ways, RST both ways.
///
/// Confined to the tunnel channel's event loop; the stack calls ``receive(_:)``, the bridge calls
/// ``send(_:)``, ``close()`` and ``abort()``.
final class TunnelTCPConnection {
    enum State: Equatable {
        case synReceived, established, closed
    }

    /// What the connection tells the application side.
    struct Callbacks {
        var data: (ByteBuffer) -> Void = { _ in }
        /// The peer sent FIN: no more data will arrive.
        var peerClosed: () -> Void = {}
        /// The connection is gone (both FINs acknowledged, a RST, or the retransmissions gave up).
        var closed: () -> Void = {}
    }

    let localPort: UInt16
    let remotePort: UInt16
    private(set) var state = State.synReceived
    var callbacks = Callbacks()

    private let eventLoop: any EventLoop
    private let output: (TCPSegment) -> Void
    private let allocator = ByteBufferAllocator()

    // Receive side.
    private var receiveNext: UInt32
    private var peerFinished = false
    /// Our window shift (0 when the peer's SYN had no window-scale option: RFC 7323 §2.2).
    private let receiveShift: UInt8

    // Send side. `sendBuffer` holds every byte not yet acknowledged, from `sendUnacknowledged` on.
    private let initialSequence: UInt32
    private var sendUnacknowledged: UInt32
    private var sendBuffer: [UInt8] = []
    /// Bytes of `sendBuffer` sent in the current pass (a retransmission starts a new pass at 0).
    private var sentCount = 0
    /// The most bytes of `sendBuffer` ever sent: ACKs up to there are valid even after a go-back-N.
    private var sentHighWater = 0
    private var finQueued = false
    private var finSent = false
    private var finEverSent = false
    private var finAcknowledged = false
    private var peerWindow: Int
    private let peerShift: UInt8
    private let segmentSize: Int

    // Retransmission (RFC 6298, without RTT sampling: the tunnel's RTT is a loopback's).
    private var retransmitTimer: Scheduled<Void>?
    private var retransmitTimeout: TimeAmount
    private var retransmissions = 0

    static let initialRetransmitTimeout = TimeAmount.milliseconds(300)
    static let maximumRetransmitTimeout = TimeAmount.seconds(4)
    /// After this many timeouts in a row the peer is gone: reset (≈ 30 s with the back-off above).
    static let maximumRetransmissions = 9
    /// Our advertised window before scaling; with shift 7 that is 8 MiB, more than a tunnel ever holds.
    static let windowField: UInt16 = 0xFFFF
    static let windowShift: UInt8 = 7

    /// Accepts a SYN and answers it with a SYN-ACK.
    init(
        syn: TCPSegment, initialSequence: UInt32, maximumSegmentSize: Int, eventLoop: any EventLoop,
        output: @escaping (TCPSegment) -> Void
    ) {
        localPort = syn.destinationPort
        remotePort = syn.sourcePort
        receiveNext = syn.sequence &+ 1
        self.initialSequence = initialSequence
        sendUnacknowledged = initialSequence
        // pmd-pytcp hangs unless a SYN-ACK answers its window-scale option with a shift ≥ 1 (it then
        // shifts its 4 MiB window by 0 and fails an assertion): scale whenever the peer offers to.
        receiveShift = syn.windowScale == nil ? 0 : Self.windowShift
        peerShift = syn.windowScale.map { min($0, 14) } ?? 0
        peerWindow = Int(syn.window)  // a SYN's window is never scaled
        segmentSize = min(Int(syn.maximumSegmentSize ?? 536), maximumSegmentSize)
        retransmitTimeout = Self.initialRetransmitTimeout
        self.eventLoop = eventLoop
        self.output = output
        sendSynAcknowledgment()
        armRetransmitTimer()
    }

    // MARK: - From the application

    /// Queues bytes for the peer; they leave as the peer's window allows.
    func send(_ buffer: ByteBuffer) {
        guard state != .closed, !finQueued else { return }
        sendBuffer.append(contentsOf: buffer.readableBytesView)
        transmit()
    }

    /// Sends FIN after the queued bytes.
    func close() {
        guard state != .closed, !finQueued else { return }
        finQueued = true
        transmit()
    }

    /// Resets the connection (RST) and forgets it.
    func abort() {
        guard state != .closed else { return }
        emit([.rst, .ack], sequence: nextSequenceToSend)
        finish()
    }

    // MARK: - From the peer

    func receive(_ segment: TCPSegment) {
        guard state != .closed else { return }
        if segment.flags.contains(.rst) {
            finish()
            return
        }
        if segment.flags.contains(.syn) {
            // A retransmitted SYN (our SYN-ACK was lost or late): answer it again. Any other SYN on an open
            // connection gets a challenge ACK (RFC 5961 §4).
            if state == .synReceived, segment.sequence &+ 1 == receiveNext {
                sendSynAcknowledgment()
            } else {
                sendAcknowledgment()
            }
            return
        }
        guard segment.flags.contains(.ack) else { return }  // every segment after the SYN carries ACK
        if state == .synReceived {
            guard segment.acknowledgment == initialSequence &+ 1 else {
                emit([.rst], sequence: segment.acknowledgment)  // RFC 9293 §3.10.7.4: an unacceptable ACK
                return
            }
            state = .established
            sendUnacknowledged = segment.acknowledgment
            retransmissions = 0
            retransmitTimeout = Self.initialRetransmitTimeout
        }
        acknowledge(segment)
        accept(segment)
        transmit()
        finishIfDone()
    }

    /// Processes the acknowledgment and window of a segment.
    private func acknowledge(_ segment: TCPSegment) {
        let acked = Int(SequenceSpace.distance(from: sendUnacknowledged, to: segment.acknowledgment))
        let outstanding = sentHighWater + (finEverSent && !finAcknowledged ? 1 : 0)
        guard acked >= 0, acked <= outstanding else { return }  // old, or acknowledges what was never sent
        peerWindow = Int(segment.window) << Int(peerShift)
        guard acked > 0 else { return }
        let dataAcked = min(acked, sentHighWater)
        sendBuffer.removeFirst(dataAcked)
        sentCount = max(0, sentCount - dataAcked)
        sentHighWater -= dataAcked
        if acked > dataAcked {
            finAcknowledged = true
            finSent = true
        }
        sendUnacknowledged = segment.acknowledgment
        retransmissions = 0
        retransmitTimeout = Self.initialRetransmitTimeout
        armRetransmitTimer()
    }

    /// Delivers the new part of a segment's data and FIN, and ACKs what arrived.
    private func accept(_ segment: TCPSegment) {
        let finishes = segment.flags.contains(.fin)
        guard !segment.payload.isEmpty || finishes else { return }  // a pure ACK needs no answer
        let offset = Int(SequenceSpace.distance(from: segment.sequence, to: receiveNext))
        guard offset >= 0 else {
            TunnelTrace.note("port \(localPort): segment \(-offset) bytes after a gap dropped")
            sendAcknowledgment()  // a gap: drop it; the duplicate ACK says what is missing
            return
        }
        let newBytes = offset < segment.payload.count ? segment.payload[offset...] : []
        let coversFin = finishes && offset <= segment.payload.count && !peerFinished
        receiveNext = receiveNext &+ UInt32(newBytes.count)
        if coversFin {
            receiveNext = receiveNext &+ 1
            peerFinished = true
        }
        sendAcknowledgment()  // at once: the host's 200 ms RTO floor must never fire on a healthy tunnel
        if !newBytes.isEmpty {
            var buffer = allocator.buffer(capacity: newBytes.count)
            buffer.writeBytes(newBytes)
            callbacks.data(buffer)
        }
        if coversFin { callbacks.peerClosed() }
    }

    // MARK: - Sending

    private var nextSequenceToSend: UInt32 { sendUnacknowledged &+ UInt32(sentCount) }

    /// Sends what the peer's window allows, then the FIN once every byte has left.
    private func transmit(windowAtLeast minimum: Int = 0) {
        guard state == .established else { return }
        let window = max(peerWindow, minimum)
        while sentCount < sendBuffer.count, sentCount < window {
            let size = min(segmentSize, sendBuffer.count - sentCount, window - sentCount)
            let payload = Array(sendBuffer[sentCount..<(sentCount + size)])
            emit([.ack, .psh], sequence: nextSequenceToSend, payload: payload)
            sentCount += size
            sentHighWater = max(sentHighWater, sentCount)
        }
        if finQueued, !finSent, sentCount == sendBuffer.count {
            emit([.fin, .ack], sequence: nextSequenceToSend)
            finSent = true
            finEverSent = true
        }
        armRetransmitTimer()
    }

    private func sendSynAcknowledgment() {
        output(
            TCPSegment(
                sourcePort: localPort, destinationPort: remotePort, sequence: initialSequence,
                acknowledgment: receiveNext, flags: [.syn, .ack], window: Self.windowField,
                maximumSegmentSize: UInt16(clamping: segmentSize),
                windowScale: receiveShift == 0 ? nil : receiveShift))
    }

    private func sendAcknowledgment() {
        emit([.ack], sequence: nextSequenceToSend)
    }

    private func emit(_ flags: TCPSegment.Flags, sequence: UInt32, payload: [UInt8] = []) {
        output(
            TCPSegment(
                sourcePort: localPort, destinationPort: remotePort, sequence: sequence, acknowledgment: receiveNext,
                flags: flags, window: Self.windowField, payload: payload))
    }

    // MARK: - Timers and the end

    private var hasOutstanding: Bool {
        state == .synReceived || sentHighWater > 0 || (finEverSent && !finAcknowledged)
            || (sentCount < sendBuffer.count && peerWindow == 0)
    }

    private func armRetransmitTimer() {
        retransmitTimer?.cancel()
        retransmitTimer = nil
        guard state != .closed, hasOutstanding else { return }
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        retransmitTimer = eventLoop.scheduleTask(in: retransmitTimeout) { bound.value.retransmit() }
    }

    /// Go-back-N from the oldest unacknowledged byte; a zero window gets a one-byte probe.
    private func retransmit() {
        retransmitTimer = nil
        guard state != .closed else { return }
        // A peer that keeps its window shut is alive (RFC 9293 §3.8.6.1: probe it indefinitely); only
        // unanswered data counts towards giving up.
        let probing = peerWindow == 0 && state == .established
        if !probing { retransmissions += 1 }
        TunnelTrace.note(
            "port \(localPort): \(probing ? "window probe" : "retransmission \(retransmissions)"), "
                + "\(sentHighWater) bytes unacknowledged")
        guard retransmissions <= Self.maximumRetransmissions else {
            TunnelTrace.note("port \(localPort): reset after \(retransmissions - 1) unanswered retransmissions")
            abort()
            return
        }
        retransmitTimeout = min(retransmitTimeout * 2, Self.maximumRetransmitTimeout)
        if state == .synReceived {
            sendSynAcknowledgment()
            armRetransmitTimer()
            return
        }
        sentCount = 0
        if !finAcknowledged { finSent = false }
        transmit(windowAtLeast: 1)
    }

    private func finishIfDone() {
        if peerFinished, finAcknowledged { finish() }
    }

    private func finish() {
        guard state != .closed else { return }
        state = .closed
        retransmitTimer?.cancel()
        retransmitTimer = nil
        callbacks.closed()
    }
}
