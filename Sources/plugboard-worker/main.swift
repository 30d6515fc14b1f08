import Foundation
import Plugboard

// A plugin worker: started by a Plugboard host with its channel on descriptor 3
// (WORKER-PROTOCOL.md); not meant to be run by hand. The environment is read once: each read
// builds the whole dictionary again.
let environment = ProcessInfo.processInfo.environment
if environment[WorkerServer.parentVariable] == nil {
    FileHandle.standardError.write(Data("plugboard-worker: this program is started by a Plugboard host (plugboard run --isolation process); it is not run by hand\n".utf8))
    exit(64)
}
exit(WorkerServer.serve(environment: environment))
