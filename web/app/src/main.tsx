// Hearth's browser client. See ui/App.tsx for the screens and state/session.ts for the
// connection to a server.

import { render } from "preact";
import { App } from "./ui/App";
import "./style.css";

render(<App />, document.getElementById("app")!);
