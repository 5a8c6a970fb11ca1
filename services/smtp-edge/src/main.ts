// The smtp-edge service: configuration, modules and shutdown all come from the runtime's target table.
import { runProcess } from "@mailstop/runtime";

void runProcess("smtp-edge");
