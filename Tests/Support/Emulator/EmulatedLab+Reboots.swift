import DeviceEmulator

extension EmulatedLab {
    /// Keeps `device` rebooting the way a real phone does, again and again: detached, then listed while
    /// lockdownd still refuses (`isStartingUp`), then ready. Cancel the task to stop; it stops by itself
    /// after `times` reboots.
    package func keepRebooting(_ device: EmulatedDevice, times: Int, pause: Duration) -> Task<Void, Never> {
        Task {
            for _ in 0..<times where !Task.isCancelled {
                try? detach(udid: device.udid)
                try? await Task.sleep(for: pause)
                device.isStartingUp = true
                try? attach(udid: device.udid)
                try? await Task.sleep(for: pause)
                device.isStartingUp = false
                try? await Task.sleep(for: pause)
            }
        }
    }
}
