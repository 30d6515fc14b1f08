import Glibc
import Plugboard

// A plugin worker: started by a Plugboard host with its channel on descriptor 3
// (WORKER-PROTOCOL.md); not meant to be run by hand.
exit(WorkerServer.main())
