import { describeDbContract } from "../support/db-contract.js";
import { memoryContractDb } from "../support/memory-contract-db.js";

/** MemoryDb under the Db contract inside workerd, where unit tests of a Worker's agents run it. */
describeDbContract("memory in workerd", memoryContractDb);
