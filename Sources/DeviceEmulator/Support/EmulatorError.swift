import Foundation

/// What can go wrong when starting or driving an emulated lab. Each message names the value and the fix.
package enum EmulatorError: Error, Sendable, Equatable {
    /// A unix socket path longer than `sun_path` allows.
    case socketPathTooLong(path: String, bytes: Int, limit: Int)
    /// Something other than a socket already sits at the path.
    case pathIsNotASocket(path: String)
    /// Another server is accepting connections on the socket.
    case socketInUse(path: String)
    /// Binding the listening socket failed.
    case cannotListen(address: String, reason: String)
    /// The lab has no device with this UDID.
    case unknownDevice(udid: String)
    /// A device with this UDID is already in the lab.
    case duplicateDevice(udid: String)
    /// The time scale must be a finite number above zero.
    case invalidTimeScale(Double)
    /// The lab was stopped.
    case stopped
    /// A line on `launchbench emulator`'s stdin that is not a command (``LabControl``); says which are.
    case badControlCommand(String)
}

extension EmulatorError: LocalizedError {
    package var errorDescription: String? {
        switch self {
        case .socketPathTooLong(let path, let bytes, let limit):
            return
                "Socket path \(path) is \(bytes) bytes long; unix sockets allow at most \(limit). Use a shorter path, e.g. /tmp/lb.sock."
        case .pathIsNotASocket(let path):
            return "\(path) exists and is not a socket. Remove it or choose another --socket path."
        case .socketInUse(let path):
            return
                "\(path) is in use by a running usbmuxd or emulator. Stop that server or choose another --socket path."
        case .cannotListen(let address, let reason):
            return "Cannot listen on \(address): \(reason). Choose another address or free it."
        case .unknownDevice(let udid):
            return
                "No emulated device with UDID \(udid) in this lab. List the lab's devices (`list`) to see the valid UDIDs."
        case .duplicateDevice(let udid):
            return "An emulated device with UDID \(udid) is already in the lab. Give each device a unique UDID."
        case .invalidTimeScale(let value):
            return "Time scale \(value) is not valid. Use a number above zero (1 = real time, 0.1 = ten times faster)."
        case .stopped:
            return "The emulated lab was stopped. Start a new lab."
        case .badControlCommand(let reason):
            return reason
        }
    }
}
