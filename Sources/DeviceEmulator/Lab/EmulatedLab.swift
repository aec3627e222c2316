import Foundation
import LaunchBench
import NIOCore
import NIOPosix

/// An emulated iPhone lab: a usbmuxd server (unix socket and/or TCP) with emulated devices behind it,
/// which the real libimobiledevice and its tools talk to as to plugged-in iPhones.
///
/// Point a client at it with `USBMUXD_SOCKET_ADDRESS=` ``usbmuxdSocketAddress``. Devices can be
/// added, removed, detached and re-attached at runtime; every `Listen` client sees the matching
/// `Attached`/`Detached` events on its open socket. Thread-safe; all methods may be called from any
/// thread or task.
package final class EmulatedLab: Sendable {
    /// A private temp folder for this lab (device folders live in `devices/<UDID>`); removed by ``stop()``.
    package let rootDirectory: URL
    /// The addresses actually listened on (a TCP port 0 is replaced by the bound port).
    package let addresses: [USBMuxAddress]
    /// The pair record's `HostID`; lockdown's `StartSession` accepts only this one.
    package let hostID: String
    /// What `ReadBUID` answers, and the pair record's `SystemBUID`.
    package let systemBUID: String

    private struct State {
        var devices: [EmulatedDevice] = []  // in the order they were added
        var listeners: [ObjectIdentifier: any Channel] = [:]
        var services: [String: any EmulatedService] = [:]
        var nextDeviceID = 1
        var isStopped = false
    }

    private let state: Locked<State>
    /// Real seconds per emulated second: 1 = real time, 0.01 = a hundred times faster.
    package let timeScale: Double
    private let servers: Locked<[any Channel]> = Locked([])
    /// Every accepted client connection (control, Listen, device pipes), so ``stop()`` can close them all.
    private let clients: Locked<[ObjectIdentifier: any Channel]> = Locked([:])
    /// Each device's `ReadPairRecord` reply body, made once: a real usbmuxd reads the record from a file, while
    /// encoding it (certificates as data, twice through the XML serializer) took ~5 ms a request, which every
    /// client that reads the record pays (libimobiledevice: at each lockdown session and each TLS service).
    private let pairRecords: Locked<[String: Data]> = Locked([:])
    /// Devices that forgot this host's pairing (as after Settings > Reset Location & Privacy): their lockdown
    /// refuses `StartSession` with `InvalidHostID` while the host still holds its pair record.
    private let forgotten: Locked<Set<String>> = Locked([])

    private init(rootDirectory: URL, addresses: [USBMuxAddress], timeScale: Double) {
        self.rootDirectory = rootDirectory
        self.addresses = addresses
        self.hostID = UUID().uuidString
        self.systemBUID = UUID().uuidString
        self.timeScale = timeScale
        self.state = Locked(State())
    }

    // MARK: - Start and stop

    /// Starts a lab listening on every address given.
    /// - Parameters:
    ///   - addresses: unix socket paths and/or TCP `host:port`s (port 0 = any free port).
    ///   - devices: the devices present from the start (attached).
    ///   - services: the device services lockdown can start; `BuiltInServices.all` by default.
    ///   - timeScale: real seconds per emulated second (1 = real time, 0.01 = a hundred times faster).
    /// - Throws: `EmulatorError` when an address cannot be used (path too long, in use, not a socket…).
    package static func start(
        on addresses: [USBMuxAddress], devices: [EmulatedDeviceSpec] = [],
        services: [any EmulatedService] = BuiltInServices.all, timeScale: Double = 1
    ) async throws -> EmulatedLab {
        guard timeScale.isFinite, timeScale > 0 else { throw EmulatorError.invalidTimeScale(timeScale) }
        precondition(!addresses.isEmpty, "EmulatedLab.start needs at least one address")
        for case .unix(let path) in addresses { try UnixSocketPath.prepare(path) }

        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("launchbench-lab-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)

        // The lab must exist before the server's child channels can reference it, so bind into a
        // box first and build the final lab (with the bound addresses) around the same state.
        let pending = PendingLab()
        var bound: [(USBMuxAddress, any Channel)] = []
        do {
            for address in addresses {
                let channel = try await bind(address, lab: pending)
                bound.append((boundAddress(address, channel), channel))
            }
        } catch {
            for (address, channel) in bound {
                try? await channel.close()
                if case .unix(let path) = address { unlink(path) }
            }
            try? FileManager.default.removeItem(at: root)
            throw error
        }

        let lab = EmulatedLab(rootDirectory: root, addresses: bound.map(\.0), timeScale: timeScale)
        lab.servers.withLock { $0 = bound.map(\.1) }
        for service in services { lab.register(service) }
        for spec in devices { try lab.add(spec) }
        pending.lab.withLock { $0 = lab }
        return lab
    }

    /// Starts a lab on one unix socket path (at most 103 bytes).
    package static func start(
        socketPath: String, devices: [EmulatedDeviceSpec] = [],
        services: [any EmulatedService] = BuiltInServices.all, timeScale: Double = 1
    ) async throws -> EmulatedLab {
        try await start(on: [.unix(path: socketPath)], devices: devices, services: services, timeScale: timeScale)
    }

    /// Stops the lab: closes the servers, every `Listen` socket and every device connection, removes the
    /// socket files and the temp root. Safe to call more than once.
    package func stop() async {
        let wasStopped = state.withLock { state -> Bool in
            defer { state.isStopped = true }
            return state.isStopped
        }
        guard !wasStopped else { return }
        let serverChannels = servers.withLock { servers in
            defer { servers = [] }
            return servers
        }
        let devices = state.withLock { state in
            defer { state.listeners = [:] }
            return state.devices
        }
        for device in devices { _ = device.setAttached(false) }
        let clientChannels = clients.withLock { Array($0.values) }
        for channel in serverChannels + clientChannels { try? await channel.close() }
        for case .unix(let path) in addresses { unlink(path) }
        try? FileManager.default.removeItem(at: rootDirectory)
    }

    /// The value for `USBMUXD_SOCKET_ADDRESS` (the first address): `UNIX:/path` or `host:port`.
    package var usbmuxdSocketAddress: String { addresses[0].description }

    /// The unix socket path, if the lab listens on one.
    package var socketPath: String? {
        for case .unix(let path) in addresses { return path }
        return nil
    }

    // MARK: - Devices

    /// Every device in the lab, attached or not, in the order they were added.
    package var devices: [EmulatedDevice] { state.withLock { $0.devices } }

    /// The devices a client sees now (attached ones).
    package var attachedDevices: [EmulatedDevice] { devices.filter(\.isAttached) }

    /// The device with this UDID, attached or not.
    package func device(udid: String) -> EmulatedDevice? {
        state.withLock { $0.devices.first { $0.udid == udid } }
    }

    /// Adds a device (attached): every `Listen` client receives `Attached`.
    /// - Throws: `EmulatorError.duplicateDevice` if the UDID is taken, `.stopped` after ``stop()``.
    @discardableResult
    package func add(_ spec: EmulatedDeviceSpec) throws -> EmulatedDevice {
        let directory = rootDirectory.appendingPathComponent("devices/\(spec.udid)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (device, listeners) = try state.withLock { state -> (EmulatedDevice, [any Channel]) in
            guard !state.isStopped else { throw EmulatorError.stopped }
            guard !state.devices.contains(where: { $0.udid == spec.udid }) else {
                throw EmulatorError.duplicateDevice(udid: spec.udid)
            }
            let device = EmulatedDevice(spec: spec, deviceID: state.nextDeviceID, directory: directory)
            state.nextDeviceID += 1
            state.devices.append(device)
            return (device, Array(state.listeners.values))
        }
        broadcast(USBMuxFrame.deviceEntry(device), to: listeners)
        return device
    }

    /// Removes a device: `Detached` to every `Listen` client (if it was attached), its connections
    /// closed, its folder deleted.
    /// - Throws: `EmulatorError.unknownDevice`.
    package func remove(udid: String) throws {
        let (device, wasAttached, connections, listeners) = try state.withLock { state in
            guard let index = state.devices.firstIndex(where: { $0.udid == udid }) else {
                throw EmulatorError.unknownDevice(udid: udid)
            }
            let device = state.devices.remove(at: index)
            let wasAttached = device.isAttached
            return (device, wasAttached, device.setAttached(false), Array(state.listeners.values))
        }
        if wasAttached { broadcast(["MessageType": "Detached", "DeviceID": device.deviceID], to: listeners) }
        for channel in connections { channel.close(promise: nil) }
        try? FileManager.default.removeItem(at: device.directory)
    }

    /// Simulates unplugging (or the first half of a reboot): `Detached` on every `Listen` socket, every
    /// open connection of the device closed, `ListDevices` omits it, `Connect` answers `Result 2`.
    /// Listen sockets stay open. Does nothing if the device is already detached.
    /// - Throws: `EmulatorError.unknownDevice`.
    package func detach(udid: String) throws {
        let (device, connections, listeners) = try state.withLock { state in
            guard let device = state.devices.first(where: { $0.udid == udid }) else {
                throw EmulatorError.unknownDevice(udid: udid)
            }
            guard device.isAttached else { return (device, [any Channel]?.none, [any Channel]()) }
            return (device, device.setAttached(false), Array(state.listeners.values))
        }
        guard let connections else { return }
        broadcast(["MessageType": "Detached", "DeviceID": device.deviceID], to: listeners)
        for channel in connections { channel.close(promise: nil) }
    }

    /// Plugs a detached device back in: `Attached` on every `Listen` socket, listed and connectable again
    /// (same DeviceID). Does nothing if it is attached.
    /// - Throws: `EmulatorError.unknownDevice`, `.stopped`.
    package func attach(udid: String) throws {
        let (device, listeners) = try state.withLock { state in
            guard !state.isStopped else { throw EmulatorError.stopped }
            guard let device = state.devices.first(where: { $0.udid == udid }) else {
                throw EmulatorError.unknownDevice(udid: udid)
            }
            guard !device.isAttached else { return (device, [any Channel]?.none) }
            _ = device.setAttached(true)
            return (device, Array(state.listeners.values))
        }
        guard let listeners else { return }
        broadcast(USBMuxFrame.deviceEntry(device), to: listeners)
    }

    /// Simulates a reboot: detach now, attach again after `bootSeconds` emulated seconds (scaled by
    /// ``timeScale``). Returns when the device is back (or the lab stopped / the device was removed).
    /// - Throws: `EmulatorError.unknownDevice`, `CancellationError`.
    package func reboot(udid: String, bootSeconds: Double) async throws {
        try detach(udid: udid)
        try await sleep(emulatedSeconds: bootSeconds)
        guard device(udid: udid) != nil, !state.withLock({ $0.isStopped }) else { return }
        try attach(udid: udid)
    }

    // MARK: - Time

    /// The real duration of `seconds` emulated seconds.
    package func realDuration(ofEmulatedSeconds seconds: Double) -> Duration {
        .nanoseconds(Int64((max(0, seconds) * timeScale * 1e9).rounded()))
    }

    /// Sleeps for `seconds` emulated seconds.
    package func sleep(emulatedSeconds seconds: Double) async throws {
        try await Task.sleep(for: realDuration(ofEmulatedSeconds: seconds))
    }

    // MARK: - Services

    /// Registers a device service for every name it answers (replacing an earlier one with the same name).
    package func register(_ service: any EmulatedService) {
        state.withLock { state in
            for name in service.serviceNames { state.services[name] = service }
        }
    }

    /// The registered service answering `name`.
    package func service(named name: String) -> (any EmulatedService)? {
        state.withLock { $0.services[name] }
    }

    // MARK: - For the usbmuxd server

    func attachedDevice(id: Int) -> EmulatedDevice? {
        state.withLock { $0.devices.first { $0.deviceID == id } }.flatMap { $0.isAttached ? $0 : nil }
    }

    /// Registers a `Listen` connection; returns the devices to announce, atomically with registration
    /// so no event is lost or duplicated.
    func addListener(_ channel: any Channel) -> [EmulatedDevice] {
        state.withLock { state in
            guard !state.isStopped else { return [] }
            state.listeners[ObjectIdentifier(channel)] = channel
            return state.devices.filter(\.isAttached)
        }
    }

    /// Records an accepted connection until it closes; `false` once the lab is stopped.
    func trackClient(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        clients.withLock { $0[id] = channel }
        // Checked after inserting: either stop() sees this channel, or this sees the stop.
        guard !state.withLock({ $0.isStopped }) else {
            clients.withLock { _ = $0.removeValue(forKey: id) }
            return false
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.clients.withLock { _ = $0.removeValue(forKey: id) }
        }
        return true
    }

    func removeListener(_ channel: any Channel) {
        state.withLock { _ = $0.listeners.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Makes the device forget (or, with `false`, remember again) this host's pairing.
    package func setForgetsPairing(_ forgets: Bool, udid: String) {
        forgotten.withLock { set in
            if forgets { set.insert(udid) } else { set.remove(udid) }
        }
    }

    /// Whether the device forgot this host's pairing (`setForgetsPairing`).
    func forgetsPairing(udid: String) -> Bool { forgotten.withLock { $0.contains(udid) } }

    /// usbmuxd's `ReadPairRecord` reply for a device (XML plist bytes: the record as `PairRecordData`); `nil`
    /// for a UDID the lab does not know.
    func pairRecordReply(forUDID udid: String) -> Data? {
        let plain = udid.replacingOccurrences(of: "-", with: "")
        guard
            let device = devices.first(where: {
                $0.udid == udid || $0.udid.replacingOccurrences(of: "-", with: "") == plain
            })
        else { return nil }
        if let made = pairRecords.withLock({ $0[device.udid] }) { return made }
        let made = PropertyList.xml(["PairRecordData": makePairRecord(for: device)])
        pairRecords.withLock { $0[device.udid] = made }
        return made
    }

    private func makePairRecord(for device: EmulatedDevice) -> Data {
        var record: [String: Any] = [
            "HostID": hostID, "SystemBUID": systemBUID,
            // Real enough for TLS: libimobiledevice presents the root pair, pymobiledevice3 the host pair.
            "RootCertificate": Data(EmulatorCertificates.rootCertificate.utf8),
            "RootPrivateKey": Data(EmulatorCertificates.rootPrivateKey.utf8),
            "HostCertificate": Data(EmulatorCertificates.hostCertificate.utf8),
            "HostPrivateKey": Data(EmulatorCertificates.hostPrivateKey.utf8),
            "DeviceCertificate": Data(EmulatorCertificates.deviceCertificate.utf8),
        ]
        if let wifi = device.lockdownValue(domain: nil, key: "WiFiAddress") as? String {
            record["WiFiMACAddress"] = wifi
        }
        return PropertyList.xml(record)
    }

    private func broadcast(_ message: [String: Any], to listeners: [any Channel]) {
        guard !listeners.isEmpty else { return }
        let frame = USBMuxFrame.encode(message, tag: 0)
        for channel in listeners { channel.writeAndFlush(frame, promise: nil) }
    }

    // MARK: - Binding

    private static func bind(_ address: USBMuxAddress, lab: PendingLab) async throws -> any Channel {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                // No lab yet (a client raced the start) or already stopped: refuse the connection.
                guard let lab = lab.lab.withLock({ $0 }), lab.trackClient(channel) else {
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(USBMuxConnectionHandler(lab: lab))
                }
            }
        do {
            switch address {
            case .unix(let path):
                return try await bootstrap.bind(unixDomainSocketPath: path).get()
            case .tcp(let host, let port):
                return try await bootstrap.bind(host: host, port: port).get()
            }
        } catch {
            throw EmulatorError.cannotListen(address: address.description, reason: "\(error)")
        }
    }

    private static func boundAddress(_ requested: USBMuxAddress, _ channel: any Channel) -> USBMuxAddress {
        guard case .tcp(let host, _) = requested, let port = channel.localAddress?.port else { return requested }
        return .tcp(host: host, port: port)
    }
}

/// Holds the lab for the server's child-channel initializer until the lab object exists.
private final class PendingLab: Sendable {
    let lab: Locked<EmulatedLab?> = Locked(nil)
}
