//! Calls com.example.units.convert and a function that does not exist at launch, through
//! `Host::invoke`, and logs both answers. Also the bus: at launch it observes
//! com.example.rust.news (logging "received NAME PAYLOAD from SENDER") and posts it.

use plugboard::{Argument, Host, Level, LaunchPlugin, Plugin, Value};

struct Caller {
    host: Host,
}

impl Plugin for Caller {
    const ID: &'static str = "com.example.rustcaller";
    fn new(host: Host) -> Result<Self, String> {
        Ok(Caller { host })
    }
}

impl LaunchPlugin for Caller {
    fn did_finish_launching(&self, _options_json: &str) -> bool {
        let arguments = [Argument::Str("ft"), Argument::Str("m"), Argument::Double(3.0)];
        let line = match self.host.invoke("com.example.units.convert", &arguments) {
            Ok(Value::Double(metres)) => format!("3 ft = {metres} m"),
            Ok(other) => format!("unexpected {other:?}"),
            Err(error) => format!("cannot convert (status {}): {}", error.status, error.message),
        };
        self.host.log(Level::Info, &line);
        let missing = self.host.invoke("com.example.units.nosuch", &[Argument::Int(1)]);
        let line = match missing {
            Ok(value) => format!("nosuch answered {value:?}"),
            Err(error) => format!("nosuch: status {}: {}", error.status, error.message),
        };
        self.host.log(Level::Info, &line);
        let log = self.host.clone();
        let observed = self.host.observe("com.example.rust.news", move |notification| {
            log.log(Level::Info, &format!("received {} {} from {}", notification.name, notification.payload, notification.sender));
        });
        let posted = self.host.post("com.example.rust.news", r#"{"from":"rust"}"#);
        let refused = self.host.post("not a name", "{}").map_err(|error| error.status);
        self.host.log(Level::Info, &format!("observe {:?}, post {:?}, bad post {:?}", observed.is_ok(), posted, refused));
        true
    }
}

plugboard::export_plugins! { Caller => [LaunchPlugin] }
