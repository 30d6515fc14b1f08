// A Swift plugin that calls plugins/unit-converter's convert at launch with PlugboardHost.invoke,
// and a function that does not exist, and logs both answers; then the same with
// PlugboardHost.prepare (SwiftFunctionTests, ConverterCallerRun). A `.dynamic`
// product of the fixture package (../Package.swift).
import PlugboardSDK

@c(plugboard_entry)
public func plugboardEntry() -> UnsafePointer<pb_entry_t> {
    PluginLibrary.entry { host in [try UnitCaller(host: host)] }
}

struct UnitCaller: LaunchPlugin {
    let descriptor: PluginDescriptor
    let host: PlugboardHost
    let log: Logger

    init(host: PlugboardHost) throws {
        let id = try PluginID(validating: "com.example.swiftcaller")
        descriptor = PluginDescriptor(id: id, name: "Swift caller", version: "1.0.0", priority: 0)
        self.host = host
        log = host.logger(for: id)
    }

    func didFinishLaunching(options: String) -> Bool {
        do {
            switch try host.invoke("com.example.units.convert", [.string("ft"), .string("m"), .double(3)]) {
            case .double(let metres): log.info("3 ft = \(metres) m")
            case let other: log.info("unexpected \(other)")
            }
        } catch {
            log.info("cannot convert (status \(error.status)): \(error.message)")
        }
        do {
            let answer = try host.invoke("com.example.units.nosuch", [.int(1)])
            log.info("nosuch answered \(answer)")
        } catch {
            log.info("nosuch: status \(error.status): \(error.message)")
        }
        do {
            let convert = try host.prepare("com.example.units.convert", [.string("ft"), .string("m"), .double(1)])
            var metres: [PluginValue] = []
            for feet in [2.0, 10] {
                try convert.set(2, to: .double(feet))
                metres.append(try convert.call())
            }
            if case .double(let two) = metres[0], case .double(let ten) = metres[1] {
                log.info("prepared: 2 ft = \(two) m, 10 ft = \(ten) m")
            } else {
                log.info("prepared: unexpected \(metres)")
            }
            do {
                try convert.set(2, to: .string("ten"))
                log.info("prepared set: accepted")
            } catch {
                log.info("prepared set: status \(error.status): \(error.message)")
            }
        } catch {
            log.info("prepared: status \(error.status): \(error.message)")
        }
        do {
            _ = try host.prepare("com.example.units.nosuch", [.int(1)])
            log.info("prepared nosuch: made")
        } catch {
            log.info("prepared nosuch: status \(error.status): \(error.message)")
        }
        return true
    }
}
