//! Broken configs and the exact message each must produce (issue #7): one shipped config
//! with one change, loaded as `test.toml`. Every message names the file, line and column,
//! the key, what was expected and, for a misspelt name, the nearest valid one.

use crate::util::shipped;
use rollsim::config::load_str;

/// (shipped config, text to replace, replacement, the whole error message)
const CASES: &[(&str, &str, &str, &str)] = &[
    ("rush.toml", "strength = 3\n", "strenght = 3\n", "test.toml:59:1: key `units.orc.strenght`: unknown key (did you mean `strength`?); expected one of `name`, `move`, `strength`, `speed`, `skill`, `armour`, `role`, `cost`"),
    ("rush.toml", "strength = 3\n", "strength = 7\n", "test.toml:59:1: key `units.orc.strength`: expected a target from 2+ to 6+ (write 4 or \"4+\"), found 7"),
    ("rush.toml", "strength = 3\n", "strength = \"1+\"\n", "test.toml:59:1: key `units.orc.strength`: expected a target from 2+ to 6+ (write 4 or \"4+\"), found \"1+\""),
    ("rush.toml", "role = \"guard\"", "role = \"gaurd\"", "test.toml:54:1: key `units.human_guard.role`: unknown value `gaurd` (did you mean `guard`?); expected one of `striker`, `jack`, `guard`"),
    ("rush.toml", "attacker = \"orc\"", "attacker = \"ork\"", "test.toml:144:1: key `scenarios.slam-orc-vs-human-guard.attacker`: no unit `ork` (did you mean `orc`?); the units are `human_striker`, `human_jack`, `human_guard`, `orc`, `goblin`"),
    ("rush.toml", "kind = \"slam\"", "kind = \"slma\"", "test.toml:143:1: key `scenarios.slam-orc-vs-human-guard.kind`: unknown value `slma` (did you mean `slam`?); expected one of `dash`, `evade`, `pick_up`, `stand_up`, `pick_up_throw`, `throw`, `pass`, `slam`, `steal`, `armour`, `play`"),
    ("rush.toml", "response = \"slamback\"", "response = \"slamabck\"", "test.toml:146:1: key `scenarios.slam-orc-vs-human-guard.response`: unknown value `slamabck` (did you mean `slamback`?); expected one of `slamback`, `dodge`, `best`"),
    ("rush.toml", "system = \"rush\"", "system = \"rusj\"", "test.toml:8:1: key `system`: unknown game system `rusj`; expected one of `rush`, `dozen`, `descent`, `skirmish`, `dice` (did you mean `rush`?)"),
    ("rush.toml", "explode_on = 0 ", "explode_on = 1 ", "test.toml:19:1: key `rules.explode_on`: expected 0 (off) or a face from 2 to 6, found 1"),
    ("rush.toml", "double_rule = \"twice\"", "double_rule = \"thrice\"", "test.toml:20:1: key `rules.double_rule`: unknown value `thrice` (did you mean `twice`?); expected one of `twice`, `margin2`"),
    ("rush.toml", "threat_cap = 2 ", "threat_cap = 11 ", "test.toml:23:1: key `rules.threat_cap`: expected an integer from 0 to 10, found 11"),
    ("rush.toml", "trials = 10_000_000", "trials = 0", "test.toml:13:1: key `run.trials`: expected a positive number of trials, found 0"),
    ("rush.toml", "trials = 10_000_000", "trials = -5", "test.toml:13:1: key `run.trials`: expected a non-negative integer, found -5"),
    ("rush.toml", "[scenarios.slam-orc-vs-human-guard]\nkind = \"slam\"", "[scenarios.slam-orc-vs-human-guard]\nextra_dice = 100\nkind = \"slam\"", "test.toml:143:1: key `scenarios.slam-orc-vs-human-guard.extra_dice`: expected an integer from -60 to 60, found 100"),
    ("rush.toml", "move = 5\n", "move = \"fast\"\n", "test.toml:31:1: key `units.human_striker.move`: expected an integer, found a string"),
    ("rush.toml", "[units.orc]\nname = \"Orc\"\nmove = 5\n", "[units.orc]\nname = \"Orc\"\nmove = 5\nname = \"Ork\"\n", "test.toml:59:1: key `units.orc.name`: invalid TOML: duplicate key: already set on line 57; keep one of the two"),
    ("rush.toml", "[units.goblin]", "[units.orc]", "test.toml:65:8: key `[units.orc]`: invalid TOML: duplicate key: already set on line 56; keep one of the two"),
    ("rush.toml", "system = \"rush\"", "", "test.toml:1:1: key `system`: missing key: every config starts with `system = \"...\"`, one of `rush`, `dozen`, `descent`, `skirmish`, `dice`"),
    ("rush.toml", "[units.orc]", "[units.orc]\ncolour = \"green\"", "test.toml:57:1: key `units.orc.colour`: unknown key (did you mean `armour`?); expected one of `name`, `move`, `strength`, `speed`, `skill`, `armour`, `role`, `cost`"),
    ("dozen.toml", "dx = 5 ", "dx = 13 ", "test.toml:35:1: key `characters.thief.dx`: expected an integer from 1 to 12, found 13"),
    ("dozen.toml", "dx = 5 ", "dx = 0 ", "test.toml:35:1: key `characters.thief.dx`: expected an integer from 1 to 12, found 0"),
    ("dozen.toml", "melee = 2, endurance = 2 }", "melee = 20, endurance = 2 }", "test.toml:64:12: key `characters.fighter.skills.melee`: expected a skill level from 0 to 12, found 20"),
    ("dozen.toml", "difficulty = \"hard\"", "difficulty = \"hrad\"", "test.toml:105:1: key `scenarios.fighter-wades-quicksand.difficulty`: unknown value `hrad` (did you mean `hard`?); expected one of `very_easy`, `easy`, `normal`, `hard`, `very_hard`"),
    ("dozen.toml", "\nheight = 4", "\nheight = -1", "test.toml:181:1: key `scenarios.thief-falls-4.height`: expected a height of 0 or more squares, found -1"),
    ("dozen.toml", "distance = 4", "distance = 5", "test.toml:192:1: key `scenarios.thief-jumps-rooftops.distance`: Thief (MV 4) can jump 1 to 4 squares, found 5"),
    ("dozen.toml", "a = \"fighter\"", "a = \"figther\"", "test.toml:258:1: key `scenarios.duel-fighter-vs-dwarf.a`: no character `figther` (did you mean `fighter`?); the characters are `thief`, `temple_knight`, `fighter`, `fighter_no_sword`, `dwarf`, `archer`"),
    ("dozen.toml", "skill = \"turn_undead\"", "skill = \"turn_undaed\"", "test.toml:235:1: key `scenarios.knight-turns-undead.skill`: Temple Knight has no skill `turn_undaed` (did you mean `turn_undead`?); their skills are `melee`, `endurance`, `turn_undead`"),
    ("dozen.toml", "mode = \"wade\"", "mode = \"swim\"", "test.toml:104:1: key `scenarios.fighter-wades-quicksand.mode`: unknown value `swim`; expected one of `wade`, `climb`"),
    ("dozen.toml", "second_charge = \"after_win\"", "second_charge = \"sometimes\"", "test.toml:21:1: key `rules.second_charge`: unknown value `sometimes`; expected one of `after_win`, `always`, `never`"),
    ("dozen.toml", "natural_fail = 12 ", "natural_fail = 13 ", "test.toml:20:1: key `rules.natural_fail`: expected an integer from 0 to 12, found 13"),
    ("dozen.toml", "shooters = [\"archer\", \"archer\"]", "shooters = [\"archer\", \"archr\"]", "test.toml:310:1: key `scenarios.thief-runs-past-two-archers.shooters`: no character `archr` (did you mean `archer`?); the characters are `thief`, `temple_knight`, `fighter`, `fighter_no_sword`, `dwarf`, `archer`"),
    ("dozen.toml", "shooters = [\"archer\", \"archer\"]", "shooters = [\"archer\", \"thief\"]", "test.toml:310:1: key `scenarios.thief-runs-past-two-archers.shooters`: Thief has no `shoot` skill to shoot with; give it a level (skills = { shoot = 2 }) or name the skill with `skill`"),
    ("dozen.toml", "shooters = [\"archer\", \"archer\"]", "shooters = []", "test.toml:310:1: key `scenarios.thief-runs-past-two-archers.shooters`: expected a list of 1 to 8 character ids, the shooters with loaded weapons, e.g. [\"archer\", \"archer\"]"),
    ("dozen.toml", "b = \"dwarf\"", "b = \"dwarf\"\ngreen = [2, 0]", "test.toml:260:1: key `scenarios.duel-fighter-vs-dwarf.green`: expected two counts, how many of the dice of `a` (0 to 1) and of `b` (0 to 1) are green, e.g. [1, 0]"),
    ("dozen.toml", "injured_green = \"cannot_activate\"", "injured_green = \"cannot_activat\"", "test.toml:25:1: key `rules.injured_green`: unknown value `cannot_activat` (did you mean `cannot_activate`?); expected one of `cannot_activate`, `can_activate`"),
    ("dozen.toml", "b = \"dwarf\"", "b = \"dwarf\"\nbag = [1]", "test.toml:260:1: key `scenarios.duel-fighter-vs-dwarf.bag`: expected two counts from 1 to 100, the dice of `a` and of `b` in the bag, e.g. [1, 1]"),
    ("dozen.toml", "b = \"dwarf\"", "b = \"dwarf\"\nmax_activations = 0", "test.toml:260:1: key `scenarios.duel-fighter-vs-dwarf.max_activations`: expected an integer from 1 to 2000, found 0"),
    ("descent.toml", "surges = [{ cost = 1, damage = 1 }, { cost = 2, effect = \"Stun\", once = true }", "surges = [{ cost = 1, damage = 1 }, { cost = 2, effect = 3, once = true }", "test.toml:392:1: key `weapons.stunning_mace.surges`: surge ability 2: `effect` must name the effect it puts on the target, e.g. \"Stun\""),
    ("descent.toml", "defence = [\"grey\"]\niron_shield", "defence = [\"gery\"]\niron_shield", "test.toml:345:1: key `monsters.fighter_iron_shield.defence`: no die `gery` (did you mean `grey`?); the dice are `red`, `blue`, `white`, `green`, `yellow`, `black`, `grey`"),
    ("descent.toml", "defence = [\"grey\"]\niron_shield", "iron_shield", "test.toml:345:1: key `monsters.fighter_iron_shield.iron_shield`: the Iron Shield re-rolls defence dice: give the target `defence` dice too"),
    ("descent.toml", "faces = [\"3H\", \"3H\", \"2H S\", \"2H S\", \"R1 2H\", \"R1 1H\"]", "faces = []", "test.toml:41:1: key `dice.green.faces`: a die needs at least one face"),
    ("descent.toml", "dice = [\"red\", \"white\"]", "dice = [\"red\", \"whte\"]", "test.toml:64:1: key `weapons.broadsword.dice`: no die `whte` (did you mean `white`?); the dice are `red`, `blue`, `white`, `green`, `yellow`, `black`, `grey`"),
    ("descent.toml", "power_dice = 2\n", "power_dice = 6\n", "test.toml:97:1: key `heroes.fighter.power_dice`: expected an integer from 0 to 5, found 6"),
    ("descent.toml", "{ cost = 1, damage = 1 }", "{ cost = -1, damage = 1 }", "test.toml:66:1: key `weapons.broadsword.surges`: surge ability 1: the cost must be at least 1 surge, found -1"),
    ("descent.toml", "faces = [\"X\", \"4H\"", "faces = [\"X\", \"4Q\"", "test.toml:32:1: key `dice.red.faces`: face 2 (\"4Q\"): unknown token `4Q`: a face is made of `X` (miss), `R2` (range), `3H` (damage), `S` or `2S` (surges), `H|R` (+1 damage or +1 range), `B` or `2B` (blocks, on a defence die) or `blank`"),
    ("descent.toml", "weapon = \"broadsword\"\ntarget = \"beastman\"\nobjective = \"kill\"\n", "weapon = \"broadsword\"\ntarget = \"beastman\"\nobjective = \"kill\"\ndistance = 3\n", "test.toml:165:1: key `scenarios.broadsword-vs-beastman.distance`: Broadsword is a melee weapon: it attacks adjacent targets only (distance 1), found 3"),
    ("descent.toml", "power_die = \"black\"", "power_die = \"blak\"", "test.toml:26:1: key `rules.power_die`: no die `blak` (did you mean `black`?) for the power dice; the dice are `red`, `blue`, `white`, `green`, `yellow`, `black`, `grey`"),
    ("descent.toml", "aim = \"optimal\"", "aim = \"best\"", "test.toml:173:1: key `scenarios.broadsword-vs-beastman-aim.aim`: unknown value `best`; expected one of `none`, `keep_all`, `misses_only`, `optimal`"),
    ("skirmish.toml", "morale_tokens = true\nb_regroup = 2", "b_regroup = 2", "test.toml:245:1: key `scenarios.archers-vs-skirmishers-regroup.b_regroup`: morale tokens count only with `morale_tokens = true`"),
    ("skirmish.toml", "reaction = \"counter_charge\"", "reaction = \"cast_spell\"", "test.toml:157:1: key `scenarios.cavalry-charges-archers-close.reaction`: `cast_spell` cannot be a reaction here: spells may never be cast as a reaction"),
    ("skirmish.toml", "reaction = \"counter_charge\"", "reaction = \"shield_wall\"", "test.toml:157:1: key `scenarios.cavalry-charges-archers-close.reaction`: Archers has no shields: only units with shields may form a shield wall (set `shields = true` on the unit)"),
    ("skirmish.toml", "target_value = 7\n", "target_value = -1\n", "test.toml:39:1: key `units.archers.target_value`: a target value cannot be negative, found -1"),
    ("skirmish.toml", "name = \"Spearmen\"\nmodels = 10\n", "name = \"Spearmen\"\nmodels = 1\n", "test.toml:126:1: key `scenarios.spearmen-charged-by-cavalry.target`: a shield wall halves Spearmen's 1 attack dice (rounding down) to 0"),
    ("skirmish.toml", "die = 10 ", "die = 1 ", "test.toml:22:1: key `rules.die`: expected an integer from 2 to 100, found 1"),
    ("skirmish.toml", "rounds = 3", "rounds = 0", "test.toml:179:1: key `scenarios.archers-vs-skirmishers-firefight.rounds`: expected an integer from 1 to 20, found 0"),
    // In every system, a scenario's misspelt key, a key of the wrong type and a missing key.
    ("rush.toml", "attacker = \"orc\"", "atacker = \"orc\"", "test.toml:144:1: key `scenarios.slam-orc-vs-human-guard.atacker`: unknown key for a `slam` scenario (did you mean `attacker`?); it takes `kind`, `description`, `attacker`, `defender`, `response`, `moved_adjacent`, `from_front`, `threat`, `defender_threat`, `extra_dice`, `defender_extra_dice`"),
    ("rush.toml", "moved_adjacent = true ", "moved_adjacent = \"yes\" ", "test.toml:147:1: key `scenarios.slam-orc-vs-human-guard.moved_adjacent`: expected true or false, found a string"),
    ("rush.toml", "attacker = \"orc\"\n", "", "test.toml:142:12: key `scenarios.slam-orc-vs-human-guard.attacker`: missing key: the id of a unit, one of `human_striker`, `human_jack`, `human_guard`, `orc`, `goblin`"),
    ("dozen.toml", "distance = 4", "distanse = 4", "test.toml:192:1: key `scenarios.thief-jumps-rooftops.distanse`: unknown key for a `jump` scenario (did you mean `distance`?); it takes `kind`, `description`, `character`, `distance`, `drop`"),
    ("dozen.toml", "distance = 4", "distance = \"far\"", "test.toml:192:1: key `scenarios.thief-jumps-rooftops.distance`: expected an integer, found a string"),
    ("dozen.toml", "distance = 4\n", "", "test.toml:188:12: key `scenarios.thief-jumps-rooftops.distance`: missing key: the jump's length in squares"),
    ("descent.toml", "target = \"beastman\"\nobjective = \"kill\"", "target = \"beastman\"\nobjectiv = \"kill\"", "test.toml:164:1: key `scenarios.broadsword-vs-beastman.objectiv`: unknown key for an `attack` scenario (did you mean `objective`?); it takes `kind`, `description`, `hero`, `weapon`, `target`, `distance`, `aim`, `dodge`, `objective`, `wounds`, `power_dice`"),
    ("descent.toml", "hero = \"fighter\"\nweapon = \"broadsword\"\ntarget = \"beastman\"", "hero = 3\nweapon = \"broadsword\"\ntarget = \"beastman\"", "test.toml:161:1: key `scenarios.broadsword-vs-beastman.hero`: expected a string, found an integer"),
    ("descent.toml", "hero = \"fighter\"\nweapon = \"broadsword\"\ntarget = \"beastman\"", "hero = \"fighter\"\ntarget = \"beastman\"", "test.toml:158:12: key `scenarios.broadsword-vs-beastman.weapon`: missing key: the id of a weapon, one of `bare_hands`, `bare_hands_red`, `broadsword`, `crossbow`, `longbow`, `fire_staff`, `beastman_axe`, `stunning_mace`"),
    ("skirmish.toml", "rounds = 3", "rouds = 3", "test.toml:179:1: key `scenarios.archers-vs-skirmishers-firefight.rouds`: unknown key for a `firefight` scenario (did you mean `rounds`?); it takes `kind`, `description`, `a`, `b`, `a_reaction`, `b_reaction`, `rounds`, `fatigue`, `morale_tokens`, `a_tokens`, `b_tokens`, `a_regroup`, `b_regroup`, `ready_markers`, `a_ready`, `b_ready`"),
    ("skirmish.toml", "rounds = 3", "rounds = \"three\"", "test.toml:179:1: key `scenarios.archers-vs-skirmishers-firefight.rounds`: expected an integer, found a string"),
    ("skirmish.toml", "rounds = 3\n", "", "test.toml:172:12: key `scenarios.archers-vs-skirmishers-firefight.rounds`: missing key: rounds, 1 to 20"),
    ("dice-examples.toml", "roll = \"4d6 drop lowest\"\nat_least = 15", "rol = \"4d6 drop lowest\"\nat_least = 15", "test.toml:43:1: key `scenarios.ability-score.rol`: unknown key (did you mean `roll`?); expected one of `description`, `roll`, `vs`, `ties`, `unit`, `opponent`, `values`, `tiers`, `tier_names`, `at_least`"),
    ("dice-examples.toml", "at_least = 15", "at_least = \"15\"", "test.toml:44:1: key `scenarios.ability-score.at_least`: expected an integer, found a string"),
    ("dice-examples.toml", "roll = \"4d6 drop lowest\"\n", "", "test.toml:41:12: key `scenarios.ability-score.roll`: missing key: the roll, e.g. roll = \"4d6 drop lowest\""),
];

#[test]
fn every_broken_config_gets_its_exact_message() {
    assert!(CASES.len() >= 30, "{} cases", CASES.len());
    for (file, from, to, message) in CASES {
        let text = std::fs::read_to_string(shipped(file)).unwrap();
        assert!(
            text.contains(from),
            "{file}: `{from}` is not in the shipped config"
        );
        let broken = text.replacen(from, to, 1);
        let err = load_str(&broken, "test.toml", &[])
            .err()
            .unwrap_or_else(|| panic!("{file}: `{to}` was accepted"));
        assert_eq!(err.to_string(), *message, "{file}: {from} -> {to}");
    }
}
