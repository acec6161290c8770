#pragma once

// An association's QoS list as sacctmgr stores it (QOS=, QOS+=, QOS-=) and as
// the controller reads it. A plain list ("high,normal") replaces what the
// association would inherit from its parent account; a list of edits
// ("+high,-low"), which is what QOS+= and QOS-= leave on an association that
// had no list of its own, changes the inherited list.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rota {

// The stored value after sacctmgr's `QOS<op>names` on an association whose
// own value is `own` ("" when it inherits). `op` is '=', '+' or '-'. Names
// are kept sorted and unique, as Slurm lists them.
std::string EditQosList(std::string_view own, char op, std::string_view names);

// The association's effective list from the stored values of `chain`: the
// association itself first, then each account above it up to root. The
// nearest plain list is the base (Slurm's root default, "normal", when there
// are only edits) and the edits below it apply from the top down. nullopt
// when nothing in the chain sets a list: every QoS is allowed.
std::optional<std::vector<std::string>> ResolveQosList(const std::vector<std::string>& chain);

}  // namespace rota
