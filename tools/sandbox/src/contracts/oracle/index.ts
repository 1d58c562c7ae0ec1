export { ORACLE_CONTRACT, oracleContract } from './oracle.contract';
