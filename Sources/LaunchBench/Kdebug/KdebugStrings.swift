/// Reassembles `TRACE_STRING_GLOBAL` strings (image paths) sent with `kdebug_trace_string` (xnu `kdebug.c`).
///
/// The first record has function START (and END too when the string fits): arg1 = the debug id of the event
/// the string belongs to, arg2 = the string id, arg3…arg4 = the first 16 bytes. Each following record on the
/// same thread carries 32 more bytes with function NONE; the last one has END. A START|END record with no text
/// for a known id releases the id; the text stays known.
package struct KdebugStrings: Sendable {
    /// Finished strings by string id.
    package private(set) var strings: [UInt64: String] = [:]
    /// Strings whose END never came, by thread: the id and the bytes so far.
    private var pending: [UInt64: (id: UInt64, bytes: [UInt8])] = [:]

    /// An empty table.
    package init() {}

    /// The string with that id.
    /// - Parameter id: a string id (MAP_IMAGE START arg2, UUID_MAP_B arg2).
    package subscript(id: UInt64) -> String? { strings[id] }

    /// Takes one record; anything but `TRACE_STRING_GLOBAL` is ignored.
    /// - Parameter record: the next record of the trace.
    package mutating func consume(_ record: KdebugRecord) {
        guard record.debugID.eventID == .traceStringGlobal else { return }
        let thread = record.threadID
        switch record.debugID.function {
        case .start, .startAndEnd:
            let text = Array(record.argumentBytes[16...])
            if record.debugID.function == .startAndEnd {
                pending[thread] = nil
                finish(id: record.arg2, bytes: text)
            } else {
                pending[thread] = (record.arg2, text)
            }
        case .none, .end:
            guard var open = pending[thread] else { return }
            open.bytes += record.argumentBytes
            if record.debugID.function == .end {
                pending[thread] = nil
                finish(id: open.id, bytes: open.bytes)
            } else {
                pending[thread] = open
            }
        }
    }

    private mutating func finish(id: UInt64, bytes: [UInt8]) {
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        if text.isEmpty, strings[id] != nil { return }  // the id's release
        strings[id] = text
    }
}
